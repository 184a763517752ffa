import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import type { EventInput, EventPublisher } from '../events';
import { recordCallConversation } from '../conversations';
import type { VoiceProvider } from './voiceLine';
import { releaseLiveSlot, returnDailyBudget } from './admission';
import { billableMinutes, billCallMinutes } from './billing';
import { endingCall } from './callEntries';
import { callEnded, type CallHooks } from './callHooks';
import { advanceCall, callCollections, loadCall, type CallDoc } from './callStore';
import { callLifecycleEvent } from './events';
import { tallyCallEnd } from './callTally';
import { firstReadingSet } from './recordReading';
import { buildResult } from './result';
import { readLineConversation } from './line/lineTurns';
import type { CallOutcome } from './types';

export interface FinishCallDeps {
  db: Db;
  /** Given to the call hooks (src/calls/callHooks.ts): a campaign's run is told a call ended; absent, the run's poll finds out. */
  temporal?: Client;
  events: EventPublisher;
  voice: VoiceProvider;
  /** Where a failed call-end hook is reported (the activity's log). */
  warn(message: string, meta: Record<string, unknown>): void;
  /** What other features do when a call ends (src/calls/callHooks.ts). */
  hooks: CallHooks;
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

function secondsBetween(from: string | null, to: string): number {
  return from ? Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000)) : 0;
}

/** A recorded, answered call's recording: where a real line stored it, else the simulator's conventional reference. */
async function recordingUriOf(voice: VoiceProvider, call: CallDoc, answeredAt: string | null): Promise<string | null> {
  if (!call.recording || !answeredAt) return null;
  if (voice.recordingUri) return voice.recordingUri(call._id);
  return `storage://recordings/${call.tenant_id}/${call._id}.ogg`;
}

/**
 * The call is over: the final state with its transcript, the live place (and, for a call
 * never placed, the day's reservation) given back, the call-end hooks run (a campaign's run
 * told of the free place), minutes billed, the transcript joined to the conversations,
 * `call.ended` emitted. Answers whether the result is decided without reading. Each part
 * with an effect that counts is guarded so a retry repeats none of them.
 */
export async function finishCall(deps: FinishCallDeps, end: CallEnd): Promise<FinishedCall> {
  const finished = await finishCallAsEnded(deps, end);
  await deps.events.publish(finished.endedEvent);
  return { decided: finished.decided };
}

/**
 * `finishCall` but for `call.ended`, which it answers unpublished with the call as it ended: for
 * a step that goes on to read the call (src/calls/endCall.ts) without reading it again, and
 * publishes `call.ended` with the reading's `call.outcome` in one write. A retry of that step
 * finds the call finished and answers the same event (its dedupe key is the call's).
 */
export async function finishCallAsEnded(
  deps: FinishCallDeps,
  end: CallEnd,
  /**
   * `decidedReadAt`: a result decided without reading (unanswered, nobody spoke) is written with
   * the end, read at that time (`resultWritten` says whether it was): one write of the call fewer.
   */
  options: { decidedReadAt?: string } = {},
): Promise<FinishedCall & { call: CallDoc; endedEvent: EventInput; resultWritten: boolean }> {
  const { db, voice, events } = deps;
  const call = await loadCall(db, end.callId);
  const duration = secondsBetween(end.answeredAt, end.endedAt);
  const exactSeconds = end.answeredAt ? (Date.parse(end.endedAt) - Date.parse(end.answeredAt)) / 1000 : 0;
  const transcript = end.answeredAt ? await voice.transcript(call._id, exactSeconds, end.answeredAt) : [];
  const recordingUri = await recordingUriOf(voice, call, end.answeredAt);
  const minutes = billableMinutes(duration);
  const decided: FinishedCall['decided'] = !end.answeredAt
    ? 'unanswered'
    : !transcript.some((turn) => turn.role === 'user' && turn.text.trim())
      ? 'no_conversation'
      : null;
  const decidedResult = decided && options.decidedReadAt !== undefined ? firstReadingSet(buildResult(null, call.capture, options.decidedReadAt, decided)) : {};
  const set: Partial<CallDoc> = {
    status: end.status,
    outcome: end.outcome,
    duration_seconds: duration,
    started_at: end.answeredAt ? new Date(end.answeredAt) : null,
    ended_at: new Date(end.endedAt),
    transcript,
    recording_uri: recordingUri,
    // What the bill below charges, known from the duration: written with the end rather than by a write of its own.
    ...(minutes > 0 ? { billed_minutes: minutes } : {}),
    ...decidedResult,
  };
  let written = false;
  // The call joins its outcome's and status's lists (the console's filters, src/calls/callEntries.ts) with this write.
  await endingCall(db, call, end, async () => (written = await advanceCall(db, call._id, end.step, set)));

  // Releasing the live place is idempotent by itself; the day's reservation must be given back once.
  if (call.direction === 'outbound') await releaseLiveSlot(db, call.tenant_id, call._id);
  const { effects } = callCollections(db);
  if (end.status === 'failed' && call.direction === 'outbound' && call.budget_reserved !== false && (await insertIfAbsent(effects, { _id: `${call._id}|budget_returned`, at: new Date() }))) {
    await returnDailyBudget(db, call.tenant_id, call.budget_day, call.reserved_minutes, call._id);
  }
  // The place is free: whatever waits for one looks now (a campaign's run, through its
  // hook). Best effort (the run's poll finds the place anyway); a retry of this step may
  // tell it twice, which costs one look.
  for (const err of await callEnded(deps.hooks, { db, temporal: deps.temporal }, call)) {
    deps.warn('a call-end hook failed; a campaign run finds the place at its poll', { callId: call._id, error: String(err) });
  }

  const billedIn = await billCallMinutes(db, call, duration);
  // The day's tally the console's overview reads (once per call, however often this step runs).
  await tallyCallEnd(
    db,
    call,
    { status: end.status, outcome: end.outcome, answered: end.answeredAt !== null, durationSeconds: duration, endedAt: new Date(end.endedAt) },
    { workspace: billedIn },
  );

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
        // A live call whose agent used tools has trail rows among its turns (src/media/callTools.ts).
        turns:
          (await readLineConversation(db, call._id, new Date(answered), exactSeconds)) ??
          transcript.map((turn) => ({ role: turn.role, text: turn.text, at: new Date(answered + turn.at_seconds * 1000) })),
      },
    );
  }

  // Nothing else writes a call between its read above and its end (the bill's minutes are in the
  // end's write), so a write that applied tells the ended call without reading it again; one
  // that did not (a retry, the end written before) reads it.
  const ended: CallDoc = written ? { ...call, ...set, step: end.step } : await loadCall(db, call._id);
  const endedEvent = callLifecycleEvent('call.ended', ended, new Date(end.endedAt));
  return { decided, call: ended, endedEvent, resultWritten: written && 'result' in decidedResult };
}
