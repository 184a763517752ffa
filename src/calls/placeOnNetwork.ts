import type { Db } from 'mongodb';
import type { VoiceProvider } from './voiceLine';
import { OriginateRefused } from './voiceLine';
import { loadCall } from './callStore';
import type { Placement } from './contracts';
import { originateRequestFor } from './originateRequest';
import { recordCallProgress } from './callProgress';
import type { CallStatus } from './types';
import type { EventPublisher } from '../events';

export interface PlacementAttempt {
  /** This attempt's number, from 1 (Temporal's, so a retry on another worker counts the same). */
  attempt: number;
  /** The last attempt: its failure gives the call up instead of being retried. */
  maxAttempts: number;
}

/**
 * Asks the network to place the call. A refusal is an answer (`placed: false`); any other
 * failure is thrown to be retried, except on the last attempt, where the call is given up as
 * not placed (a provider that cannot be reached must end the call, not hold its live place for
 * the activity's whole retry policy and then fail the workflow: issue 32). Giving up first asks
 * the network to hang up whatever an earlier attempt may have dialled before its answer was
 * lost (best effort: a provider that cannot be reached cannot be asked).
 */
export async function placeOnNetwork(
  deps: { db: Db; voice: VoiceProvider },
  input: { callId: string; requestedAt: string },
  { attempt, maxAttempts }: PlacementAttempt,
): Promise<Placement> {
  const call = await loadCall(deps.db, input.callId);
  // Ended before its lifecycle began (the live-place sweeper ended a call whose start came
  // late): nothing may ring the person now.
  if (call.ended_at) return { placed: false, error: 'The call ended before it was placed.' };
  try {
    await deps.voice.originate(originateRequestFor(call, input.requestedAt));
    return { placed: true, error: null };
  } catch (err) {
    if (err instanceof OriginateRefused) return { placed: false, error: err.message };
    if (attempt < maxAttempts) throw err;
    await deps.voice.hangup(call._id).catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    return { placed: false, error: `The network could not be reached after ${maxAttempts} attempts: ${why}` };
  }
}

/** What `placeAndRecord` takes: the placing request and the progress it records when the network places the call. */
export interface PlaceAndRecordInput {
  callId: string;
  requestedAt: string;
  /** The workflow's step number of the placement's progress (src/calls/callProgress.ts). */
  step: number;
  /** `ringing` (outbound) or `in_progress` (inbound, already on the line). */
  status: CallStatus;
  /** ISO, the workflow's time of the step: `placed_at`. */
  at: string;
}

/**
 * Places the call and, when the network placed it, records the placement (`placed_at`, and
 * `call.started` once): one step of the call's lifecycle where there were two (issue 36).
 * Safe to retry: the provider is idempotent per call id, the progress write is guarded by its
 * step and the event deduplicated.
 */
export async function placeAndRecord(
  deps: { db: Db; voice: VoiceProvider; events: EventPublisher },
  input: PlaceAndRecordInput,
  attempt: PlacementAttempt,
): Promise<Placement> {
  const placement = await placeOnNetwork(deps, input, attempt);
  if (placement.placed) await recordCallProgress(deps, { callId: input.callId, step: input.step, status: input.status, at: input.at, placed: true });
  return placement;
}
