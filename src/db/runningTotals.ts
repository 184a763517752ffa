import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from './insertIfAbsent';
import { isDuplicateKey } from './duplicateKey';

/**
 * Counters that hold under parallel writers on FerretDB 1.x, where `$inc` is not atomic: an
 * append-only log of running totals per key (`<key>|<seq>`), each step a unique insert of the
 * next sequence number (two writers never both take it; the loser reads again and retries),
 * and a head document hinting at the last sequence. Reading the totals is a head and a few
 * entries, all by `_id` (the one filter FerretDB answers from an index), however many steps
 * the key has. The daily call budget (src/calls/admission.ts) is the same pattern with its own
 * limit check; this is its general form, for tallies read by the console (src/calls/callTally.ts).
 */

export type Totals = Record<string, number>;

interface TotalsEntryDoc {
  /** `<key>|<seq>`. */
  _id: string;
  key: string;
  seq: number;
  totals: Totals;
  /** What the step counted (a call id), for whoever audits the log. */
  ref: string;
  at: Date;
}

interface TotalsHeadDoc {
  _id: string;
  seq: number;
}

export interface TotalsLog {
  entries: Collection<TotalsEntryDoc>;
  heads: Collection<TotalsHeadDoc>;
}

/** A log in `<name>_entries` and `<name>_heads`. */
export function totalsLog(db: Db, name: string): TotalsLog {
  return { entries: db.collection<TotalsEntryDoc>(`${name}_entries`), heads: db.collection<TotalsHeadDoc>(`${name}_heads`) };
}

/** Entries read past the head's hint in one round trip: a head a few appends behind costs no more reads. */
const READ_AHEAD = 4;
/** Appends that lose the race this often in a row give up (the caller's retry tries again later). */
const MAX_ATTEMPTS = 1_000;

async function lastStep(log: TotalsLog, key: string): Promise<{ seq: number; totals: Totals }> {
  const head = await log.heads.findOne({ _id: key });
  let seq = head?.seq ?? 0;
  let last: TotalsEntryDoc | null = null;
  for (let from = seq > 0 ? seq : 1; ; from = seq + 1) {
    const ids = Array.from({ length: READ_AHEAD + 1 }, (_, k) => `${key}|${from + k}`);
    const found = new Map((await log.entries.find({ _id: { $in: ids } }).toArray()).map((e) => [e.seq, e]));
    for (let at = from; found.has(at); at++) {
      last = found.get(at)!;
      seq = at;
    }
    if (seq < from + READ_AHEAD) break;
  }
  return last ? { seq: last.seq, totals: last.totals } : { seq: 0, totals: {} };
}

/** The key's totals now (`{}` before its first step). */
export async function readTotals(log: TotalsLog, key: string): Promise<Totals> {
  return (await lastStep(log, key)).totals;
}

/** Adds `change` to the key's totals as one new step; answers the totals after it. */
export async function addToTotals(log: TotalsLog, key: string, change: Totals, ref: string, now: Date): Promise<Totals> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await lastStep(log, key);
    const seq = current.seq + 1;
    const totals: Totals = { ...current.totals };
    for (const [name, n] of Object.entries(change)) totals[name] = (totals[name] ?? 0) + n;
    if (await insertIfAbsent(log.entries, { _id: `${key}|${seq}`, key, seq, totals, ref, at: now })) {
      // Only a hint: a stale or lost write costs the next reader one more round trip. Two
      // first upserts of the same head race, and the loser's duplicate-key error is harmless.
      await log.heads.updateOne({ _id: key }, { $max: { seq } }, { upsert: true }).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
      });
      return totals;
    }
  }
  throw new Error(`the running totals of ${key} are too contended`);
}
