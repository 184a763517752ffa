import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { periodicPass } from '../async/periodicPass';
import { liveSlotsAfter, releaseLiveSlotOf, type LiveSlotDoc } from './admission';
import { callCollections, type CallDoc } from './callStore';
import { callWorkflowId } from './contracts';
import { finishCall, type CallEnd, type FinishCallDeps } from './finishCall';
import { recordReading } from './recordReading';
import type { CallOutcome } from './types';

/**
 * Gives back live places whose call's lifecycle is gone (issue 32): a call workflow
 * terminated, timed out or failed, or never started (its API process died between writing the
 * call and starting it). Such a workflow cannot end its call, so its place stayed taken for
 * good and a campaign waiting on the call never settled. Each pass walks the small
 * `call_live_slots` collection (a bounded batch, continuing where the last pass stopped),
 * describes the workflow of every place held past the grace, and ends the call of one that is
 * closed or missing through the call's own finish (`finishCall`: final state, place and day's
 * reservation given back, call-end hooks, billing, `call.ended` once) and a first reading
 * decided without the reader (`call.outcome` when decided; else `failed`, to re-read from the
 * console). Runs in each worker process; two passes at once, or a pass racing a late step,
 * repeat nothing: each part of the finish is guarded (step numbers, claims, event dedupe keys).
 */

/** A place younger than this is left alone: its call is being placed (the API writes, then starts the workflow). */
export const LIVE_PLACE_SWEEP_GRACE_MS = 60_000;
export const LIVE_PLACE_SWEEP_INTERVAL_MS = 30_000;
/** The step the sweeper finishes a call with: past any its workflow reaches, so no late write of it moves the call back. */
export const SWEPT_CALL_STEP = 1_000_000;

export interface LivePlaceSweeperOptions {
  deps: FinishCallDeps & { temporal: Client };
  graceMs?: number;
  intervalMs?: number;
  /** Places read a pass; the next pass reads on from there. */
  batchSize?: number;
  now?: () => Date;
  onError?: (err: unknown, callId: string | null) => void;
  /** A call this sweeper ended (or whose interrupted finish it completed). */
  onEnded?: (callId: string, end: Pick<CallEnd, 'status' | 'outcome'>) => void;
}

export interface LivePlaceSweeper {
  /** One pass; how many places it gave back. */
  sweepOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

const LIVE_STATUSES = new Set<CallDoc['status']>(['ringing', 'dialing', 'starting', 'in_progress', 'human_handoff', 'human_active']);

/** When the call's lifecycle stopped: its close time; null while it runs; `missing` when Temporal has no such workflow. */
async function lifecycleStop(temporal: Client, callId: string): Promise<Date | null | 'missing'> {
  try {
    const described = await temporal.workflow.getHandle(callWorkflowId(callId)).describe();
    if (described.status.name === 'RUNNING') return null;
    return described.closeTime ?? 'missing';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'missing';
    throw err;
  }
}

/**
 * How a call whose lifecycle is gone ends (docs/decisions/calls.md, "A call's place"): never
 * placed, `failed` `originate_error` (the contract's one failed outcome); placed and never
 * answered, `completed` `no_answer` (the person was not reached); answered, `completed`
 * `setup_error` (our side failed after the answer, as when the media process dies).
 */
export function abandonedCallEnd(call: CallDoc, stoppedAt: Date): Omit<CallEnd, 'callId' | 'step'> {
  const answeredAt = call.started_at;
  const endedAt = new Date(Math.max(stoppedAt.getTime(), answeredAt?.getTime() ?? 0, call.created_at.getTime()));
  const end = (status: CallEnd['status'], outcome: CallOutcome) => ({ status, outcome, answeredAt: answeredAt?.toISOString() ?? null, endedAt: endedAt.toISOString() });
  if (answeredAt) return end('completed', 'setup_error');
  if (call.placed_at) return end('completed', 'no_answer');
  return end('failed', 'originate_error');
}

export function createLivePlaceSweeper({
  deps,
  graceMs = LIVE_PLACE_SWEEP_GRACE_MS,
  intervalMs = LIVE_PLACE_SWEEP_INTERVAL_MS,
  batchSize = 200,
  now = () => new Date(),
  onError = () => undefined,
  onEnded = () => undefined,
}: LivePlaceSweeperOptions): LivePlaceSweeper {
  let after = '';

  /** Ends the call of a place whose lifecycle is gone; true when the place was given back. */
  async function giveBack(slot: LiveSlotDoc, stoppedAt: Date): Promise<boolean> {
    const call = await callCollections(deps.db).calls.findOne({ _id: slot.call_id });
    if (!call) {
      // Its placing died before writing the call: nothing to end, no event to send.
      await releaseLiveSlotOf(deps.db, slot);
      return true;
    }
    // A finish that stopped part-way (its state written, its place not yet given back) is
    // completed as it was decided; a live call is ended now.
    const end = LIVE_STATUSES.has(call.status)
      ? abandonedCallEnd(call, stoppedAt)
      : { status: call.status === 'failed' ? ('failed' as const) : ('completed' as const), outcome: call.outcome ?? 'setup_error', answeredAt: call.started_at?.toISOString() ?? null, endedAt: (call.ended_at ?? stoppedAt).toISOString() };
    // A real line may still be up with nobody listening to it: hang it up (safe to repeat).
    if (call.placed_at && LIVE_STATUSES.has(call.status)) await deps.voice.hangup(call._id).catch((err: unknown) => onError(err, call._id));
    const finished = await finishCall(deps, { callId: call._id, step: SWEPT_CALL_STEP, ...end });
    if (call.result.state === 'pending') {
      await recordReading(deps, {
        callId: call._id,
        reading: 1,
        // The reader belongs to the lifecycle that is gone; a console re-read can read the call.
        outcome: finished.decided ? { kind: 'decided', decided: finished.decided } : { kind: 'failed' },
        keepReadyOnFailure: true,
        readAt: now().toISOString(),
      });
    }
    onEnded(call._id, end);
    return true;
  }

  async function sweepOnce(): Promise<number> {
    const cutoff = now().getTime() - graceMs;
    const slots = await liveSlotsAfter(deps.db, after, batchSize);
    after = slots.length < batchSize ? '' : slots.at(-1)!._id;
    let given = 0;
    for (const slot of slots) {
      if (slot.taken_at.getTime() > cutoff) continue;
      try {
        const stopped = await lifecycleStop(deps.temporal, slot.call_id);
        if (stopped === null) continue;
        if (await giveBack(slot, stopped === 'missing' ? now() : stopped)) given++;
      } catch (err) {
        // Left for the next pass (Temporal or the database may be back by then).
        onError(err, slot.call_id);
      }
    }
    return given;
  }

  return { sweepOnce, ...periodicPass(sweepOnce, intervalMs, (err) => onError(err, null)) };
}
