import { collections } from '../db/collections';
import type { CycleStepResult } from './contracts';
import { raiseDue, type RaiseDeps } from './raise';
import { duesCollections } from './store';
import { raiseAtMs } from './workflowStarts';

/**
 * The cycle's side effects (activities/dues.ts wraps them). When cycle `index` is due to be
 * raised, and the raise itself: an active subscriber gets the due, a paused one gets none
 * (that cycle is skipped, not owed later), a cancelled one ends the cycle.
 */

export async function nextRaise(deps: RaiseDeps, subscriberId: string, index: number): Promise<{ kind: 'at'; atMs: number } | { kind: 'ended' }> {
  const subscriber = await duesCollections(deps.db).subscribers.findOne({ _id: subscriberId });
  if (!subscriber || subscriber.status === 'cancelled') return { kind: 'ended' };
  const workspace = await collections(deps.db).workspaces.findOne({ _id: subscriber.tenant_id });
  return { kind: 'at', atMs: raiseAtMs(subscriber, index, workspace?.timezone ?? 'UTC') };
}

/** Safe to repeat: raiseDue finds the due of this index if an earlier attempt raised it. */
export async function raiseCycle(deps: RaiseDeps, subscriberId: string, index: number, at: Date): Promise<CycleStepResult> {
  const subscriber = await duesCollections(deps.db).subscribers.findOne({ _id: subscriberId });
  if (!subscriber || subscriber.status === 'cancelled') return { kind: 'ended' };
  const workspace = await collections(deps.db).workspaces.findOne({ _id: subscriber.tenant_id });
  const nextRaiseAtMs = raiseAtMs(subscriber, index + 1, workspace?.timezone ?? 'UTC');
  if (subscriber.status === 'paused') return { kind: 'skipped', nextRaiseAtMs };
  await raiseDue(deps, subscriber, index, at);
  return { kind: 'raised', nextRaiseAtMs };
}
