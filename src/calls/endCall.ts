import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { publishEach, type EventPublisher } from '../events';
import type { CallHooks } from './callHooks';
import { finishCallAsEnded, type CallEnd, type FinishCallDeps } from './finishCall';
import type { CallReader } from './reader';
import { readInputFor, writeReading } from './recordReading';
import type { CallResult } from './types';
import type { VoiceProvider } from './voiceLine';

/**
 * How long the end step waits for the reader before leaving the reading to the reader's own
 * activity (heartbeats, retries with backoff). Well inside the workflow task's 10 s, so a
 * reading in the step never makes the worker heartbeat the task (three history events each).
 */
export const READ_IN_END_STEP_MS = 5_000;

export interface EndCallDeps extends FinishCallDeps {
  db: Db;
  temporal?: Client;
  events: EventPublisher;
  voice: VoiceProvider;
  reader: CallReader;
  hooks: CallHooks;
}

export interface EndCallInput {
  end: CallEnd;
  /** The line is still up (a hang-up, a deadline): end it first. */
  hangUpLine: boolean;
  /** ISO, from workflow time: the result's `read_at`. */
  readAt: string;
}

export interface EndedCall {
  /** The result as written; null when the reader did not answer in time (or failed): the reader's activity reads it. */
  resultState: CallResult['state'] | null;
}

/**
 * A call's whole end in one step (`callLifecycle`'s end, issue 36): the line hung up if still
 * up, the call finished (src/calls/finishCall.ts), and its result decided or read and written
 * (src/calls/recordReading.ts), the call read once for all of it; `call.ended` and the
 * result's `call.outcome` are stored together, after the result (a reading left to the
 * reader's activity: `call.ended` alone, at once). Safe to retry: each part is (a retry may
 * ask the reader again; the events are deduplicated by key). A reader that fails or is slower than
 * `READ_IN_END_STEP_MS`, or a real line's call (see below), is left to the reader's activity,
 * which retries it with backoff.
 */
export async function endCall(deps: EndCallDeps, input: EndCallInput, options: { cancelled?: AbortSignal } = {}): Promise<EndedCall> {
  const { end } = input;
  if (input.hangUpLine) await deps.voice.hangup(end.callId);
  // First, so a network report of this end finds it taken rather than reaching the workflow while this step runs.
  else await deps.voice.endTaken?.(end.callId);
  const finished = await finishCallAsEnded(deps, end, { decidedReadAt: input.readAt });
  const record = { callId: end.callId, reading: 1, keepReadyOnFailure: false, readAt: input.readAt };
  // `call.ended`, then the result's `call.outcome`, stored in one write when the step has both.
  const withOutcome = async (written: Awaited<ReturnType<typeof writeReading>>): Promise<EndedCall> => {
    await publishEach(deps.events, written.outcomeEvent ? [finished.endedEvent, written.outcomeEvent] : [finished.endedEvent]);
    return { resultState: written.state };
  };
  const endedAlone = async (): Promise<EndedCall> => {
    await deps.events.publish(finished.endedEvent);
    return { resultState: null };
  };
  if (finished.decided) {
    return withOutcome(await writeReading(deps, { ...record, outcome: { kind: 'decided', decided: finished.decided } }, finished.call, { written: finished.resultWritten }));
  }
  // A real line may report this end twice (the bridge's, then the network's): a signal landing
  // while the workflow's last task runs fails that task and runs this step again, the reader
  // with it. So its reading is left to the reader's activity, in a later task.
  if (deps.voice.endTaken) return endedAlone();
  const signal = AbortSignal.any([AbortSignal.timeout(READ_IN_END_STEP_MS), ...(options.cancelled ? [options.cancelled] : [])]);
  let reading;
  try {
    // Attempt 1: a reader scripted to fail its first reads fails here too, and its activity then counts its own attempts.
    reading = await Promise.race([deps.reader.read(readInputFor(finished.call), { attempt: 1, signal }), abortion(signal)]);
  } catch {
    return endedAlone();
  }
  return withOutcome(await writeReading(deps, { ...record, outcome: { kind: 'read', reading } }, finished.call));
}

/** Rejects when `signal` aborts: a reader that does not heed its signal still leaves the step on time. */
function abortion(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
