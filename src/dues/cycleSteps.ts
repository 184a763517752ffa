import { collections } from '../db/collections';
import { dueDateOf, zoneDate } from './cycle';
import type { CycleStepResult } from './contracts';
import { raiseDue, type RaiseDeps } from './raise';
import { readDuesSettings } from './settings';
import { duesCollections } from './store';
import { raiseAtMs } from './workflowStarts';

/**
 * The cycle's side effects (activities/dues.ts wraps them). When cycle `index` is due to be
 * raised, and the raise itself: an active subscriber gets the due, a paused one gets none
 * (that cycle is skipped, not owed later), a cancelled one ends the cycle.
 */

/**
 * The next cycle to raise, from `index`, and when. A cycle whose due date has already passed
 * is skipped, never raised late: a backdated `start_date` gets the two dues raised at creation,
 * not every cycle since (a start years back would otherwise raise them all at once).
 */
export async function nextRaise(
  deps: RaiseDeps,
  subscriberId: string,
  index: number,
  nowMs: number,
): Promise<{ kind: 'at'; index: number; atMs: number } | { kind: 'ended' }> {
  const subscriber = await duesCollections(deps.db).subscribers.findOne({ _id: subscriberId });
  if (!subscriber || subscriber.status === 'cancelled') return { kind: 'ended' };
  const workspace = await collections(deps.db).workspaces.findOne({ _id: subscriber.tenant_id });
  const zone = workspace?.timezone ?? 'UTC';
  const today = zoneDate(new Date(nowMs), zone);
  let next = index;
  while (dueDateOf(subscriber, next) < today) next += 1;
  return { kind: 'at', index: next, atMs: raiseAtMs(subscriber, next, zone) };
}

/** Safe to repeat: raiseDue finds the due of this index if an earlier attempt raised it. */
export async function raiseCycle(deps: RaiseDeps, subscriberId: string, index: number, at: Date): Promise<CycleStepResult> {
  const subscriber = await duesCollections(deps.db).subscribers.findOne({ _id: subscriberId });
  if (!subscriber || subscriber.status === 'cancelled') return { kind: 'ended' };
  const workspace = await collections(deps.db).workspaces.findOne({ _id: subscriber.tenant_id });
  const zone = workspace?.timezone ?? 'UTC';
  const nextRaiseAtMs = raiseAtMs(subscriber, index + 1, zone);
  if (subscriber.status === 'paused') return { kind: 'skipped', nextRaiseAtMs };
  await raiseDue(deps, subscriber, index, at, { settings: await readDuesSettings(deps.db, subscriber.tenant_id), zone });
  return { kind: 'raised', nextRaiseAtMs };
}
