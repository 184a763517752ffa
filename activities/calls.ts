import { Context, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { releaseLiveSlot, returnDailyBudget } from '../src/calls/admission';
import { callCollections, type CallDoc } from '../src/calls/callStore';
import { insertIfAbsent } from '../src/db/insertIfAbsent';
import { billCallMinutes } from '../src/calls/billing';
import { callEnded, callReread } from '../src/calls/callHooks';
import { callLifecycleEvent, callOutcomeData } from '../src/calls/events';
import { buildResult, failedResult } from '../src/calls/result';
import { originateRequestFor } from '../src/calls/originateRequest';
import type { CallOutcome, CallResult, CallStatus, Reading, ReadInput } from '../src/calls/types';
import type { EventPublisher } from '../src/events/publisher';
import { recordCallConversation } from '../src/conversations/recordCall';
import type { CallReader } from '../src/providers/reader/types';
import { toActivityFailure } from '../src/providers/reader/failures';
import type { VoiceProvider } from '../src/providers/voice/types';
import { OriginateRefused } from '../src/providers/voice/types';
import { READER_HEARTBEAT_INTERVAL_MS, type Placement } from '../src/calls/contracts';
import { FailureType, permanentFailure } from '../src/temporal/failures';

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

export interface CallEnd {
  callId: string;
  step: number;
  status: 'completed' | 'failed';
  outcome: CallOutcome;
  answeredAt: string | null;
  endedAt: string;
}

export interface FinishedCall {
  /** Who decides the result without reading; null when the call must be read. */
  decided: 'unanswered' | 'no_conversation' | null;
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

function secondsBetween(from: string | null, to: string): number {
  return from ? Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000)) : 0;
}

export function createCallActivities({ db, temporal, events, voice, reader }: CallActivityDeps) {
  /** A recorded, answered call's recording: where a real line stored it, else the simulator's conventional reference. */
  async function recordingUriOf(call: CallDoc, answeredAt: string | null): Promise<string | null> {
    if (!call.recording || !answeredAt) return null;
    if (voice.recordingUri) return voice.recordingUri(call._id);
    return `storage://recordings/${call.tenant_id}/${call._id}.ogg`;
  }

  const { calls, effects } = callCollections(db);

  async function loadCall(callId: string): Promise<CallDoc> {
    const call = await calls.findOne({ _id: callId });
    // The API writes the read model before it starts the workflow: missing now is missing for good.
    if (!call) throw permanentFailure(FailureType.ReadModelMissing, `call ${callId} has no read model`);
    return call;
  }

  /** Moves the read model forward, never back: only a write from a later step applies. */
  async function advance(callId: string, step: number, set: Partial<CallDoc>): Promise<boolean> {
    const updated = await calls.updateOne({ _id: callId, step: { $lt: step } }, { $set: { ...set, step, updated_at: new Date() } });
    return updated.modifiedCount === 1;
  }

  return {
    /**
     * Asks the network to place the call. Safe to retry: the provider is idempotent per
     * call id. A refusal is an answer, not a failure.
     */
    async placeCall(input: { callId: string; requestedAt: string }): Promise<Placement> {
      const call = await loadCall(input.callId);
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
      const call = written ?? (await loadCall(progress.callId));
      await events.publish(callLifecycleEvent('call.started', call, new Date(progress.at)));
    },

    /** Ends the line if it is still up. Safe to repeat. */
    async hangUpLine(input: { callId: string }): Promise<void> {
      await voice.hangup(input.callId);
    },

    /**
     * The call is over: the final state with its transcript, the live place (and, for a
     * call never placed, the day's reservation) given back, a campaign's run told of the
     * free place, minutes billed, `call.ended` emitted. Each part with an effect that counts
     * is guarded so a retry repeats none of them.
     */
    async finishCall(end: CallEnd): Promise<FinishedCall> {
      const call = await loadCall(end.callId);
      const duration = secondsBetween(end.answeredAt, end.endedAt);
      const exactSeconds = end.answeredAt ? (Date.parse(end.endedAt) - Date.parse(end.answeredAt)) / 1000 : 0;
      const transcript = end.answeredAt ? await voice.transcript(call._id, exactSeconds, end.answeredAt) : [];
      await advance(call._id, end.step, {
        status: end.status,
        outcome: end.outcome,
        duration_seconds: duration,
        started_at: end.answeredAt ? new Date(end.answeredAt) : null,
        ended_at: new Date(end.endedAt),
        transcript,
        recording_uri: await recordingUriOf(call, end.answeredAt),
      });

      // Releasing the live place is idempotent by itself; the day's reservation must be given back once.
      if (call.direction === 'outbound') await releaseLiveSlot(db, call.tenant_id, call._id);
      if (end.status === 'failed' && call.direction === 'outbound' && call.budget_reserved !== false && (await insertIfAbsent(effects, { _id: `${call._id}|budget_returned`, at: new Date() }))) {
        await returnDailyBudget(db, call.tenant_id, call.budget_day, call.reserved_minutes, call._id);
      }
      // The place is free: whatever waits for one looks now (a campaign's run, through its
      // hook: src/calls/callHooks.ts). Best effort (the run's poll finds the place anyway); a
      // retry of this step may tell it twice, which costs one look.
      for (const err of await callEnded({ db, temporal }, call)) {
        log.warn('a call-end hook failed; a campaign run finds the place at its poll', { callId: call._id, error: String(err) });
      }

      await billCallMinutes(db, call, duration);

      // The transcript joins the conversations (channel `voice`, one per call); idempotent by call id.
      if (end.answeredAt && transcript.length > 0) {
        const answered = Date.parse(end.answeredAt);
        const name = call.detail_lines.find((line) => /name/i.test(line.label))?.value;
        await recordCallConversation(
          { db, events },
          {
            tenantId: call.tenant_id,
            callId: call._id,
            agentId: call.agent_id,
            customer: name ? { phone: call.to, name } : { phone: call.to },
            turns: transcript.map((turn) => ({ role: turn.role, text: turn.text, at: new Date(answered + turn.at_seconds * 1000) })),
          },
        );
      }

      const ended = await loadCall(call._id);
      await events.publish(callLifecycleEvent('call.ended', ended, new Date(end.endedAt)));
      if (!end.answeredAt) return { decided: 'unanswered' };
      if (!transcript.some((turn) => turn.role === 'user' && turn.text.trim())) return { decided: 'no_conversation' };
      return { decided: null };
    },

    /**
     * Hands the transcript to the reader. Temporary reader errors are retried by the
     * activity's policy. Heartbeats while the reader works, so a lost worker is noticed within
     * the heartbeat timeout; a cancellation (the workflow's, or a heartbeat timeout's) aborts
     * the reader's request through the signal.
     */
    async readCall(input: { callId: string }): Promise<Reading> {
      const call = await loadCall(input.callId);
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
      const call = await loadCall(input.callId);
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
