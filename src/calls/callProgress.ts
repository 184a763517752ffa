import type { Db } from 'mongodb';
import type { EventPublisher } from '../events';
import { advanceCall, callCollections, loadCall, type CallDoc } from './callStore';
import { callLifecycleEvent } from './events';
import type { CallStatus } from './types';

export interface CallProgress {
  callId: string;
  /** The workflow's step number: a write from an earlier step never overwrites a later one. */
  step: number;
  status: CallStatus;
  /** ISO, from workflow time. */
  at: string;
  /** The placement: it stamps `placed_at` and emits `call.started`, once. */
  placed?: boolean;
}

/** Records a live status of a call. Safe to retry: the step guards the write and the event is deduplicated. */
export async function recordCallProgress(deps: { db: Db; events: EventPublisher }, progress: CallProgress): Promise<void> {
  const set: Partial<CallDoc> = { status: progress.status };
  if (progress.placed) set.placed_at = new Date(progress.at);
  if (progress.status === 'in_progress') set.started_at = new Date(progress.at);
  if (!progress.placed) {
    await advanceCall(deps.db, progress.callId, progress.step, set);
    return;
  }
  // The write answers the call as written (one round trip where there were two); a retry
  // whose write no longer applies reads it.
  const written = await callCollections(deps.db).calls.findOneAndUpdate(
    { _id: progress.callId, step: { $lt: progress.step } },
    { $set: { ...set, step: progress.step, updated_at: new Date() } },
    { returnDocument: 'after' },
  );
  const call = written ?? (await loadCall(deps.db, progress.callId));
  await deps.events.publish(callLifecycleEvent('call.started', call, new Date(progress.at)));
}
