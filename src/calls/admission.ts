import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { takeNumberedPlace } from '../db/numberedPlaces';
import { LIMITS } from '../domain/limits';
import { utcDay } from './callStore';
import { isDuplicateKey } from '../db/duplicateKey';

/**
 * The two call limits that must hold under parallel requests (api-core §8): live calls per
 * workspace and the daily budget. FerretDB 1.x applies neither conditional updates nor
 * `$inc` atomically (measured: 15 parallel `$inc`s left a counter at 3; see
 * docs/decisions/README.md), while an insert of an existing `_id` always fails. So every place is
 * claimed by inserting a document whose `_id` names it: two requests can never both take
 * the last one, on FerretDB or MongoDB.
 */

export interface LiveSlotDoc {
  /** `<tenant>|live|<n>`, n from 0 to 9: the workspace's ten places. */
  _id: string;
  tenant_id: string;
  call_id: string;
  taken_at: Date;
}

/** One step of a workspace's day: running totals after a call was counted or given back. */
interface BudgetEntryDoc {
  /** `<tenant>|<day>|<seq>`: the sequence makes each step a unique claim. */
  _id: string;
  tenant_id: string;
  day: string;
  seq: number;
  calls: number;
  minutes: number;
  call_id: string;
  at: Date;
}

/** A hint of the last sequence number, so finding the end of the day's entries takes a read or two. */
interface BudgetHeadDoc {
  _id: string;
  seq: number;
}

function liveSlots(db: Db): Collection<LiveSlotDoc> {
  return db.collection<LiveSlotDoc>('call_live_slots');
}

function budgetEntries(db: Db): Collection<BudgetEntryDoc> {
  return db.collection<BudgetEntryDoc>('call_budget_entries');
}

function budgetHeads(db: Db): Collection<BudgetHeadDoc> {
  return db.collection<BudgetHeadDoc>('call_budget_heads');
}

/**
 * Takes one of the workspace's ten live-call places for `callId`; false when all are taken. A
 * call holds one place however often its placing runs (a retried request that took over a dead
 * one's Idempotency-Key, a campaign step retried): a place it already holds is its answer.
 */
export async function takeLiveSlot(db: Db, tenantId: string, callId: string, now = new Date()): Promise<boolean> {
  return takeNumberedPlace(liveSlots(db), tenantId, 'live', LIMITS.concurrentCallsPerWorkspace, (_id) => ({ _id, tenant_id: tenantId, call_id: callId, taken_at: now }), {
    field: 'call_id',
    value: callId,
  });
}

/** Gives the place back (every one, should two placings of the call have raced); safe to repeat. */
export async function releaseLiveSlot(db: Db, tenantId: string, callId: string): Promise<void> {
  await liveSlots(db).deleteMany({ tenant_id: tenantId, call_id: callId });
}

/**
 * The next `limit` places in `_id` order after `after` (the live-place sweeper's walk over the
 * whole collection, a few passes at a time). Small: ten places at most per workspace with a
 * live call, so the scan FerretDB makes of a range is cheap.
 */
export async function liveSlotsAfter(db: Db, after: string, limit: number): Promise<LiveSlotDoc[]> {
  return liveSlots(db).find({ _id: { $gt: after } }).sort({ _id: 1 }).limit(limit).toArray();
}

/** Frees one place if `callId` still holds it (a call with no record left it). */
export async function releaseLiveSlotOf(db: Db, slot: Pick<LiveSlotDoc, '_id' | 'call_id'>): Promise<void> {
  await liveSlots(db).deleteOne({ _id: slot._id, call_id: slot.call_id });
}

export async function liveCallCount(db: Db, tenantId: string): Promise<number> {
  return liveSlots(db).countDocuments({ tenant_id: tenantId });
}

export interface BudgetUsage {
  calls: number;
  minutes: number;
}

export type BudgetAnswer = { ok: true; day: string } | { ok: false; usage: BudgetUsage };

/** Entries read past the head's hint in one round trip: a head a few appends behind costs no more reads. */
const BUDGET_READ_AHEAD = 4;

async function lastEntry(db: Db, tenantId: string, day: string): Promise<BudgetUsage & { seq: number }> {
  const head = await budgetHeads(db).findOne({ _id: `${tenantId}|${day}` });
  let seq = head?.seq ?? 0;
  let last: BudgetEntryDoc | null = null;
  // The head's entry and the next few in one `_id: {$in}` read (issue 28: one round trip
  // where there were two or more); read on while every one asked for exists.
  for (let from = seq > 0 ? seq : 1; ; from = seq + 1) {
    const ids = Array.from({ length: BUDGET_READ_AHEAD + 1 }, (_, k) => `${tenantId}|${day}|${from + k}`);
    const found = new Map((await budgetEntries(db).find({ _id: { $in: ids } }).toArray()).map((e) => [e.seq, e]));
    for (let at = from; found.has(at); at++) {
      last = found.get(at)!;
      seq = at;
    }
    if (seq < from + BUDGET_READ_AHEAD) break;
  }
  return last ? { seq: last.seq, calls: last.calls, minutes: last.minutes } : { seq: 0, calls: 0, minutes: 0 };
}

/**
 * Appends a step with new running totals, if `accept` allows it. Competing appends race for
 * the same sequence number; the losers read again and retry.
 */
async function appendStep(
  db: Db,
  tenantId: string,
  day: string,
  callId: string,
  change: BudgetUsage,
  accept: (current: BudgetUsage) => boolean,
): Promise<{ ok: boolean; usage: BudgetUsage }> {
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const current = await lastEntry(db, tenantId, day);
    if (!accept(current)) return { ok: false, usage: { calls: current.calls, minutes: current.minutes } };
    const seq = current.seq + 1;
    const usage = { calls: current.calls + change.calls, minutes: current.minutes + change.minutes };
    const entry: BudgetEntryDoc = { _id: `${tenantId}|${day}|${seq}`, tenant_id: tenantId, day, seq, ...usage, call_id: callId, at: new Date() };
    if (await insertIfAbsent(budgetEntries(db), entry)) {
      // Only a hint: a stale or lost write costs the next reader one more point read. Two
      // first upserts of the same head race, and the loser's duplicate-key error is harmless.
      await budgetHeads(db)
        .updateOne({ _id: `${tenantId}|${day}` }, { $max: { seq } }, { upsert: true })
        .catch((err: unknown) => {
          if (!isDuplicateKey(err)) throw err;
        });
      return { ok: true, usage };
    }
  }
  throw new Error(`daily budget of ${tenantId} on ${day} is too contended`);
}

/** Counts one call and its reserved minutes against today's budget, if both still fit. */
export async function reserveDailyBudget(db: Db, tenantId: string, minutes: number, now: Date, callId = ''): Promise<BudgetAnswer> {
  const day = utcDay(now);
  const step = await appendStep(
    db,
    tenantId,
    day,
    callId,
    { calls: 1, minutes },
    (current) => current.calls < LIMITS.callsPerUtcDay && current.minutes + minutes <= LIMITS.reservedMinutesPerUtcDay,
  );
  return step.ok ? { ok: true, day } : { ok: false, usage: step.usage };
}

/** Gives back a reservation for a call that was never placed. */
export async function returnDailyBudget(db: Db, tenantId: string, day: string, minutes: number, callId = ''): Promise<void> {
  await appendStep(db, tenantId, day, callId, { calls: -1, minutes: -minutes }, (current) => current.calls > 0);
}

/** The day's usage, for tests and the console. */
export async function dailyBudgetUsage(db: Db, tenantId: string, day: string): Promise<BudgetUsage> {
  const last = await lastEntry(db, tenantId, day);
  return { calls: last.calls, minutes: last.minutes };
}
