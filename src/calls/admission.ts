import type { Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { LIMITS } from '../domain/limits';
import { callCollections, utcDay, type CallBudgetDoc } from './callStore';

/**
 * The two call limits that must hold under parallel requests (api-core §8): live calls per
 * workspace and the daily budget. Each is one conditional update on one document, so two
 * requests can never both take the last place (FerretDB has no transactions).
 */

/** Takes a live-call place for `callId`; false when the workspace already has its ten. */
export async function takeLiveSlot(db: Db, tenantId: string, callId: string): Promise<boolean> {
  const { slots } = callCollections(db);
  await insertIfAbsent(slots, { _id: tenantId, live: [], count: 0 });
  const taken = await slots.findOneAndUpdate(
    { _id: tenantId, count: { $lt: LIMITS.concurrentCallsPerWorkspace }, live: { $ne: callId } },
    { $inc: { count: 1 }, $push: { live: callId } },
  );
  return taken !== null;
}

/** Gives the place back; safe to repeat (only a call still holding a place decrements). */
export async function releaseLiveSlot(db: Db, tenantId: string, callId: string): Promise<void> {
  await callCollections(db).slots.updateOne({ _id: tenantId, live: callId }, { $inc: { count: -1 }, $pull: { live: callId } });
}

export type BudgetAnswer = { ok: true; day: string } | { ok: false; usage: Pick<CallBudgetDoc, 'calls' | 'minutes'> };

/** Counts one call and its reserved minutes against today's budget, if both still fit. */
export async function reserveDailyBudget(db: Db, tenantId: string, minutes: number, now: Date): Promise<BudgetAnswer> {
  const { budgets } = callCollections(db);
  const day = utcDay(now);
  const _id = `${tenantId}|${day}`;
  await insertIfAbsent(budgets, { _id, tenant_id: tenantId, day, calls: 0, minutes: 0 });
  const reserved = await budgets.findOneAndUpdate(
    { _id, calls: { $lt: LIMITS.callsPerUtcDay }, minutes: { $lte: LIMITS.reservedMinutesPerUtcDay - minutes } },
    { $inc: { calls: 1, minutes } },
  );
  if (reserved) return { ok: true, day };
  const current = await budgets.findOne({ _id });
  return { ok: false, usage: { calls: current?.calls ?? 0, minutes: current?.minutes ?? 0 } };
}

/** Gives back a reservation for a call that was never placed. */
export async function returnDailyBudget(db: Db, tenantId: string, day: string, minutes: number): Promise<void> {
  await callCollections(db).budgets.updateOne({ _id: `${tenantId}|${day}`, calls: { $gt: 0 } }, { $inc: { calls: -1, minutes: -minutes } });
}
