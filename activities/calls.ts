import { Context, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { advanceCall, callCollections, loadCall, type CallDoc } from '../src/calls/callStore';
import { callReread } from '../src/calls/callHooks';
import { finishCall, type CallEnd, type FinishedCall } from '../src/calls/finishCall';
import { callLifecycleEvent, callOutcomeData } from '../src/calls/events';
import { buildResult, failedResult } from '../src/calls/result';
import { originateRequestFor } from '../src/calls/originateRequest';
import type { CallResult, CallStatus, Reading, ReadInput } from '../src/calls/types';
import type { EventPublisher } from '../src/events/publisher';
import type { CallReader } from '../src/providers/reader/types';
import { toActivityFailure } from '../src/providers/reader/failures';
import type { VoiceProvider } from '../src/providers/voice/types';
import { OriginateRefused } from '../src/providers/voice/types';
import { READER_HEARTBEAT_INTERVAL_MS, type Placement } from '../src/calls/contracts';

export type { CallEnd, FinishedCall } from '../src/calls/finishCall';

export interface CallActivityDeps {
  db: Db;
  /** Given to the call hooks (src/calls/callHooks.ts): a campaign's run is told a call ended; absent, the run's poll finds out. */
  temporal?: Client;
  events: EventPublisher;
  voice: VoiceProvider;
  reader: CallReader;
}

export interface CallProgress {
  callId: string;
  /** The workflow's step number: a write from an earlier step never overwrites a later one. */
  step: number;
  status: CallStatus;
  /** ISO, from workflow time. */
  at: string;
}

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

export function createCallActivities({ db, temporal, events, voice, reader }: CallActivityDeps) {
  const { calls } = callCollections(db);

  const load = (callId: string) => loadCall(db, callId);
  const advance = (callId: string, step: number, set: Partial<CallDoc>) => advanceCall(db, callId, step, set);

  return {
    /**
     * Asks the network to place the call. Safe to retry: the provider is idempotent per
     * call id. A refusal is an answer, not a failure.
     */
    async placeCall(input: { callId: string; requestedAt: string }): Promise<Placement> {
      const call = await load(input.callId);
      try {
        await voice.originate(originateRequestFor(call, input.requestedAt));
        return { placed: true, error: null };
      } catch (err) {
        if (err instanceof OriginateRefused) return { placed: false, error: err.message };
        throw err;
      }
    },

    /** Records a live status. The first (placement) also emits `call.started`, once. */
    async recordCallProgress(progress: CallProgress & { placed?: boolean }): Promise<void> {
      const set: Partial<CallDoc> = { status: progress.status };
      if (progress.placed) set.placed_at = new Date(progress.at);
      if (progress.status === 'in_progress') set.started_at = new Date(progress.at);
      if (!progress.placed) {
        await advance(progress.callId, progress.step, set);
        return;
      }
      // The write answers the call as written (issue 28: one round trip where there were two);
      // a retry whose write no longer applies reads it.
      const written = await calls.findOneAndUpdate(
        { _id: progress.callId, step: { $lt: progress.step } },
        { $set: { ...set, step: progress.step, updated_at: new Date() } },
        { returnDocument: 'after' },
      );
      const call = written ?? (await load(progress.callId));
      await events.publish(callLifecycleEvent('call.started', call, new Date(progress.at)));
    },

    /** Ends the line if it is still up. Safe to repeat. */
    async hangUpLine(input: { callId: string }): Promise<void> {
      await voice.hangup(input.callId);
    },

    /** The call is over (src/calls/finishCall.ts); safe to retry. */
    finishCall: (end: CallEnd): Promise<FinishedCall> => finishCall({ db, temporal, events, voice, warn: (message, meta) => log.warn(message, meta) }, end),

    /**
     * Hands the transcript to the reader. Temporary reader errors are retried by the
     * activity's policy. Heartbeats while the reader works, so a lost worker is noticed within
     * the heartbeat timeout; a cancellation (the workflow's, or a heartbeat timeout's) aborts
     * the reader's request through the signal.
     */
    async readCall(input: { callId: string }): Promise<Reading> {
      const call = await load(input.callId);
      const readInput: ReadInput = {
        callId: call._id,
        direction: call.direction,
        goal: call.capture?.goal ?? call.purpose,
        purpose: call.purpose,
        capture: call.capture,
        transcript: call.transcript ?? [],
        answeredAt: (call.started_at ?? call.created_at).toISOString(),
      };
      const context = Context.current();
      context.heartbeat();
      const beat = setInterval(() => context.heartbeat(), READER_HEARTBEAT_INTERVAL_MS);
      try {
        return await reader.read(readInput, { attempt: context.info.attempt, signal: context.cancellationSignal });
      } catch (err) {
        // Cancelled: leave as the cancellation, which the SDK reports as such (not as a reader error).
        if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason ?? err;
        throw toActivityFailure(err);
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Writes a reading as the call's result and emits its `call.outcome`; a re-read then runs
     * the re-read hooks (a campaign call's person's merged outcome is refolded). Safe to retry: the reading number
     * guards the write and dedupes the event, and the refold depends only on the calls' readings.
     */
    async recordReading(input: RecordReadingInput): Promise<CallResult['state']> {
      const call = await load(input.callId);
      let result: CallResult;
      if (input.outcome.kind === 'read') result = buildResult(input.outcome.reading, call.capture, input.readAt);
      else if (input.outcome.kind === 'decided') result = buildResult(null, call.capture, input.readAt, input.outcome.decided);
      else result = failedResult();

      if (result.state === 'failed' && input.keepReadyOnFailure && call.result.state === 'ready') return 'ready';
      const stored = { ...result, read_at: result.read_at ? new Date(result.read_at) : null };
      await calls.updateOne(
        { _id: call._id, readings: { $lt: input.reading } },
        { $set: { result: stored, summary: result.summary, readings: input.reading, updated_at: new Date() } },
      );
      if (result.state === 'ready') {
        // The event takes the call's fixed fields and this result: the call read above serves.
        const dedupeKey = `call.outcome:${call._id}:${input.reading}`;
        await events.publish({
          tenantId: call.tenant_id,
          type: 'call.outcome',
          dedupeKey,
          data: callOutcomeData(call, result, dedupeKey),
          createdAt: new Date(input.readAt),
        });
        if (input.reread) await callReread({ db, temporal }, call._id, new Date(input.readAt));
      }
      return result.state;
    },
  };
}

export type CallActivities = ReturnType<typeof createCallActivities>;
