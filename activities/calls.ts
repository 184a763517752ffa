import { Context, log } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { CallHooks } from '../src/calls/callHooks';
import { recordCallProgress, type CallProgress } from '../src/calls/callProgress';
import { loadCall } from '../src/calls/callStore';
import { finishCall, type CallEnd, type FinishedCall } from '../src/calls/finishCall';
import { endCall, type EndCallInput, type EndedCall } from '../src/calls/endCall';
import { placeAndRecord, placeOnNetwork, type PlaceAndRecordInput } from '../src/calls/placeOnNetwork';
import { VOICE_ORIGINATE_ATTEMPTS_DEFAULT } from '../src/config';
import { readInputFor, recordReading, type RecordReadingInput } from '../src/calls/recordReading';
import type { CallResult, Reading } from '../src/calls/types';
import type { EventPublisher } from '../src/events/publisher';
import type { CallReader } from '../src/calls/reader';
import { toActivityFailure } from '../src/providers/reader/failures';
import type { VoiceProvider } from '../src/calls/voiceLine';
import { READER_HEARTBEAT_INTERVAL_MS, type Placement } from '../src/calls/contracts';

export type { CallEnd, FinishedCall } from '../src/calls/finishCall';
export type { CallProgress } from '../src/calls/callProgress';
export type { EndCallInput, EndedCall } from '../src/calls/endCall';
export type { RecordReadingInput } from '../src/calls/recordReading';
export type { PlaceAndRecordInput } from '../src/calls/placeOnNetwork';

export interface CallActivityDeps {
  db: Db;
  /** Given to the call hooks (src/calls/callHooks.ts): a campaign's run is told a call ended; absent, the run's poll finds out. */
  temporal?: Client;
  events: EventPublisher;
  voice: VoiceProvider;
  reader: CallReader;
  /** VOICE_ORIGINATE_ATTEMPTS: the placing attempt whose failure gives the call up. */
  originateAttempts?: number;
  /** What other features do when a call ends or is read again (src/main/featureHooks.ts). */
  callHooks: CallHooks;
}

export function createCallActivities({ db, temporal, events, voice, reader, callHooks, originateAttempts = VOICE_ORIGINATE_ATTEMPTS_DEFAULT }: CallActivityDeps) {
  const load = (callId: string) => loadCall(db, callId);

  return {
    /**
     * Asks the network to place the call (src/calls/placeOnNetwork.ts): safe to retry, the
     * provider is idempotent per call id; a refusal, or the last attempt's failure, is an answer.
     */
    placeCall: (input: { callId: string; requestedAt: string }): Promise<Placement> =>
      placeOnNetwork({ db, voice }, input, { attempt: Context.current().info.attempt, maxAttempts: originateAttempts }),

    /**
     * Places the call and records its placement (src/calls/placeOnNetwork.ts), the first step
     * of `callLifecycle`: safe to retry, as `placeCall` and `recordCallProgress` are.
     */
    placeAndRecordCall: (input: PlaceAndRecordInput): Promise<Placement> =>
      placeAndRecord({ db, voice, events }, input, { attempt: Context.current().info.attempt, maxAttempts: originateAttempts }),

    /** Records a live status (src/calls/callProgress.ts). The first (placement) also emits `call.started`, once. */
    recordCallProgress: (progress: CallProgress): Promise<void> => recordCallProgress({ db, events }, progress),

    /** Ends the line if it is still up. Safe to repeat. */
    async hangUpLine(input: { callId: string }): Promise<void> {
      await voice.hangup(input.callId);
    },

    /** The call is over (src/calls/finishCall.ts); safe to retry. */
    finishCall: (end: CallEnd): Promise<FinishedCall> => finishCall({ db, temporal, events, voice, hooks: callHooks, warn: (message, meta) => log.warn(message, meta) }, end),

    /**
     * The call's whole end in one step (src/calls/endCall.ts): the line hung up if still up,
     * the call finished, its result decided or read (the reader given a few seconds) and
     * written. Safe to retry: each part is. A cancellation aborts the reader's request.
     */
    endCall: (input: EndCallInput): Promise<EndedCall> =>
      endCall({ db, temporal, events, voice, reader, hooks: callHooks, warn: (message, meta) => log.warn(message, meta) }, input, { cancelled: Context.current().cancellationSignal }),

    /**
     * Hands the transcript to the reader. Temporary reader errors are retried by the
     * activity's policy. Heartbeats while the reader works, so a lost worker is noticed within
     * the heartbeat timeout; a cancellation (the workflow's, or a heartbeat timeout's) aborts
     * the reader's request through the signal.
     */
    async readCall(input: { callId: string }): Promise<Reading> {
      const call = await load(input.callId);
      const readInput = readInputFor(call);
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

    /** Writes a reading as the call's result (src/calls/recordReading.ts); safe to retry. */
    recordReading: (input: RecordReadingInput): Promise<CallResult['state']> => recordReading({ db, temporal, events, hooks: callHooks }, input),
  };
}

export type CallActivities = ReturnType<typeof createCallActivities>;
