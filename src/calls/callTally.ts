import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { addToTotals, readTotals, totalsLog, type Totals } from '../db/runningTotals';
import { localTime } from '../domain/sendWindow';
import { callCollections, type CallDoc } from './callStore';
import type { CallOutcome, CallStatus } from './types';

/**
 * The calls that ended on each day of a workspace, in its own time zone: how many, how they
 * ended, how long people talked, and the newest ones. Kept as running totals (src/db/
 * runningTotals.ts) because the console's overview must not scan the calls, which FerretDB
 * does for any filter but an `_id` (measured: 5 s for the newest 25 of 6,000 calls with
 * transcripts, docs/console.md). Written once per call at its end (a claim in `call_effects`
 * first, so a retried end counts nothing twice; an end that dies between the claim and the
 * step leaves that one call uncounted, never counted twice).
 */

const log = (db: Db) => totalsLog(db, 'call_day_tallies');

export interface CallDayTally {
  ended: number;
  answered: number;
  connected_seconds: number;
  by_status: Partial<Record<CallStatus, number>>;
  by_outcome: Partial<Record<CallOutcome, number>>;
  /** Calls ended in each hour of the day (0 to 23, the workspace's clock). */
  by_hour: number[];
  /** The last few calls counted, newest first. */
  newest: string[];
}

/** The workspace's date at `at`, `YYYY-MM-DD`, in its zone. */
export function workspaceDate(at: Date, timeZone: string): string {
  const t = localTime(at, timeZone);
  return `${t.year}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;
}

const keyOf = (tenantId: string, date: string) => `${tenantId}|${date}`;

/**
 * Counts a call that ended at `endedAt` into its workspace's day; once per call, however often
 * it is asked. `workspace`: the workspace as the caller has just read it (the finish's bill),
 * so its time zone is not read again.
 */
export async function tallyCallEnd(
  db: Db,
  call: Pick<CallDoc, '_id' | 'tenant_id'>,
  end: { status: CallStatus; outcome: CallOutcome | null; answered: boolean; durationSeconds: number; endedAt: Date },
  known: { workspace: Pick<WorkspaceDoc, 'timezone'> | null } = { workspace: null },
): Promise<void> {
  if (!(await insertIfAbsent(callCollections(db).effects, { _id: `${call._id}|tallied`, at: end.endedAt }))) return;
  const workspace = known.workspace ?? (await collections(db).workspaces.findOne({ _id: call.tenant_id }, { projection: { timezone: 1 } }));
  const zone = workspace?.timezone ?? 'UTC';
  const date = workspaceDate(end.endedAt, zone);
  const change: Totals = {
    ended: 1,
    answered: end.answered ? 1 : 0,
    connected_seconds: end.durationSeconds,
    [`status:${end.status}`]: 1,
    [`hour:${localTime(end.endedAt, zone).hour}`]: 1,
  };
  if (end.outcome) change[`outcome:${end.outcome}`] = 1;
  await addToTotals(log(db), keyOf(call.tenant_id, date), change, call._id, end.endedAt);
}

/** The day's tally (all zeros before the first call ends) with its newest calls, from a few `_id` reads. */
export async function callDayTally(db: Db, tenantId: string, date: string, newest: number): Promise<CallDayTally> {
  const key = keyOf(tenantId, date);
  const { totals, refs } = await readTotalsWithRefs(db, key, newest);
  const tally: CallDayTally = { ended: totals.ended ?? 0, answered: totals.answered ?? 0, connected_seconds: totals.connected_seconds ?? 0, by_status: {}, by_outcome: {}, by_hour: Array.from({ length: 24 }, () => 0), newest: refs };
  for (const [name, n] of Object.entries(totals)) {
    if (n === 0) continue;
    if (name.startsWith('status:')) tally.by_status[name.slice(7) as CallStatus] = n;
    if (name.startsWith('outcome:')) tally.by_outcome[name.slice(8) as CallOutcome] = n;
    if (name.startsWith('hour:')) tally.by_hour[Number(name.slice(5))] = n;
  }
  return tally;
}

async function readTotalsWithRefs(db: Db, key: string, newest: number): Promise<{ totals: Totals; refs: string[] }> {
  const totals = await readTotals(log(db), key);
  const steps = totals.ended ?? 0;
  if (steps === 0 || newest === 0) return { totals, refs: [] };
  // Each step counts one call, so the newest are the last `newest` sequence numbers.
  const ids = Array.from({ length: Math.min(newest, steps) }, (_, k) => `${key}|${steps - k}`);
  const entries = await log(db).entries.find({ _id: { $in: ids } }).toArray();
  const bySeq = new Map(entries.map((e) => [e.seq, e.ref]));
  return { totals, refs: ids.map((_, k) => bySeq.get(steps - k)).filter((r): r is string => r !== undefined) };
}
