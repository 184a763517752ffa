import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { EventInput, EventPublisher } from '../events';
import { callReread, type CallHooks } from './callHooks';
import { callCollections, loadCall, type CallDoc } from './callStore';
import { callOutcomeData } from './events';
import { buildResult, failedResult } from './result';
import type { CallResult, Reading, ReadInput } from './types';

export interface RecordReadingInput {
  callId: string;
  /** Numbers the reading and its `call.outcome`. */
  reading: number;
  outcome: { kind: 'read'; reading: Reading } | { kind: 'decided'; decided: 'unanswered' | 'no_conversation' } | { kind: 'failed' };
  /** Keep a ready result when this reading failed (console re-reads). */
  keepReadyOnFailure: boolean;
  /** A console re-read: the re-read hooks run (a campaign call's person is refolded: src/calls/callHooks.ts). */
  reread?: boolean;
  /** ISO, from workflow time. */
  readAt: string;
}

/** What the reader is given of a call. */
export function readInputFor(call: CallDoc): ReadInput {
  return {
    callId: call._id,
    tenantId: call.tenant_id,
    to: call.to,
    direction: call.direction,
    goal: call.capture?.goal ?? call.purpose,
    purpose: call.purpose,
    capture: call.capture,
    transcript: call.transcript ?? [],
    answeredAt: (call.started_at ?? call.created_at).toISOString(),
  };
}

/**
 * Writes a reading as the call's result and emits its `call.outcome`; a re-read then runs
 * the re-read hooks (a campaign call's person's merged outcome is refolded). Safe to retry:
 * the reading number guards the write and dedupes the event, and the refold depends only on
 * the calls' readings.
 */
export async function recordReading(
  deps: { db: Db; temporal?: Client; events: EventPublisher; hooks: CallHooks },
  input: RecordReadingInput,
): Promise<CallResult['state']> {
  const call = await loadCall(deps.db, input.callId);
  const { state, outcomeEvent } = await writeReading(deps, input, call);
  if (outcomeEvent) {
    await deps.events.publish(outcomeEvent);
    if (input.reread) await callReread(deps.hooks, { db: deps.db, temporal: deps.temporal }, call._id, new Date(input.readAt));
  }
  return state;
}

/** What a reading writes on the call, `reading` numbering it. */
export function readingSet(result: CallResult, reading: number): Pick<CallDoc, 'result' | 'summary' | 'readings'> {
  return { result: { ...result, read_at: result.read_at ? new Date(result.read_at) : null }, summary: result.summary, readings: reading };
}

/** The first reading's write, for the end's own write of a result decided without reading (src/calls/finishCall.ts). */
export function firstReadingSet(result: CallResult): Pick<CallDoc, 'result' | 'summary' | 'readings'> {
  return readingSet(result, 1);
}

/**
 * `recordReading`'s write, for a first reading of a call the caller has just read (the end step
 * that finished it): answers the `call.outcome` to publish (null when the result is not ready),
 * so the step publishes it with `call.ended` in one write. Runs no re-read hooks.
 */
export async function writeReading(
  deps: { db: Db },
  input: RecordReadingInput,
  call: CallDoc,
  /** `written`: the end's own write carried this result (a decided first reading), so only its event is owed. */
  options: { written?: boolean } = {},
): Promise<{ state: CallResult['state']; outcomeEvent: EventInput | null }> {
  let result: CallResult;
  if (input.outcome.kind === 'read') result = buildResult(input.outcome.reading, call.capture, input.readAt);
  else if (input.outcome.kind === 'decided') result = buildResult(null, call.capture, input.readAt, input.outcome.decided);
  else result = failedResult();

  if (result.state === 'failed' && input.keepReadyOnFailure && call.result.state === 'ready') return { state: 'ready', outcomeEvent: null };
  if (!options.written) {
    await callCollections(deps.db).calls.updateOne({ _id: call._id, readings: { $lt: input.reading } }, { $set: { ...readingSet(result, input.reading), updated_at: new Date() } });
  }
  if (result.state !== 'ready') return { state: result.state, outcomeEvent: null };
  // The event takes the call's fixed fields and this result: the call read above serves.
  const dedupeKey = `call.outcome:${call._id}:${input.reading}`;
  const outcomeEvent = { tenantId: call.tenant_id, type: 'call.outcome', dedupeKey, data: callOutcomeData(call, result, dedupeKey), createdAt: new Date(input.readAt) };
  return { state: result.state, outcomeEvent };
}
