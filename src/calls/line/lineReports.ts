import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { LineControl, LineEvent } from '../voiceLine';
import { agentMissedTheLine, findLineCall, findLineCallByProviderId, recordProviderCallId, type LineCallDoc } from './lineCalls';
import { signalLineEvent } from './signalLine';

/**
 * What the line says about a call, once a telephony adapter has read its provider's request
 * (status callbacks, answer requests) into neutral terms: the policy for those reports lives
 * here, so an adapter only translates its protocol and renders the answer in its own
 * (docs/decisions/calls.md, "The line policy lives in the calls slice").
 */
export interface LineReportDeps {
  db: Db;
  temporal: Client;
  /** The same adapter's control of the line: a machine that answered is hung up through it. */
  lineControl: LineControl;
}

/**
 * How long an `ended` report of a connected call waits for the media bridge to note the end
 * of the call's stream session. The provider ends the stream as the call ends, and the bridge
 * notes it in milliseconds; a stream still unended after this went with a killed media process.
 */
const MEDIA_END_GRACE_MS = 3_000;

/** Which call a report is about: by the call id we gave the provider (in its URLs), else by the provider's own id. */
export interface ReportedCall {
  callId: string | null;
  providerCallId: string | null;
}

export interface LineStatusReport extends ReportedCall {
  /**
   * The report is about a leg the provider dialled off the call (a hand-over's), not the call
   * itself: its id is not the call's, so it is not recorded as such.
   */
  childLeg: boolean;
  /** What the report means on the line; null when it changes nothing the call tracks (queued, ringing). */
  event: LineEvent | null;
  /** A machine took the call, reported as it answered: the call is hung up once its workflow knows why. */
  machineAnswered: boolean;
}

/** The answer to a status report: what the adapter tells the provider (the JSON `status`). */
export type LineStatusAnswer = 'unknown_call' | 'ignored' | 'ended_by_us' | 'reported' | 'finished';

/** The line call a report is about, or null when it is none of ours. */
export async function findReportedCall(db: Db, reported: ReportedCall): Promise<LineCallDoc | null> {
  if (reported.callId) return findLineCall(db, reported.callId);
  return reported.providerCallId ? findLineCallByProviderId(db, reported.providerCallId) : null;
}

/**
 * A call's progress as its line reports it, signalled to the call's workflow. Safe to repeat:
 * a provider's retry finds the same state.
 */
export async function reportLineStatus(deps: LineReportDeps, report: LineStatusReport): Promise<LineStatusAnswer> {
  const call = await findReportedCall(deps.db, report);
  if (!call) return 'unknown_call';
  // The first report may come before the originate recorded the provider's id (or after it stopped short).
  if (!call.provider_call_id && report.providerCallId && !report.childLeg) await recordProviderCallId(deps.db, call._id, report.providerCallId);
  let event = report.event;
  if (!event) return 'ignored';
  // The call's workflow hung up and knows why: the network's report of it changes nothing.
  if (event.kind === 'ended' && call.ended_by_us_at) return 'ended_by_us';
  // The agent was not on the line when it ended: its media went with its process while the
  // call was up, or never came (the media process was down, or refused the stream). The line
  // reports the call completed, but nobody hung up on an agent (docs/voice.md).
  if (event.kind === 'ended' && event.outcome === 'caller_hangup' && (await agentMissedTheLine(deps.db, call._id, MEDIA_END_GRACE_MS))) {
    event = { ...event, outcome: 'setup_error' };
  }
  // A machine took the call: it is told why first, so the hang-up's own report decides nothing.
  const result = await signalLineEvent(deps.temporal, call._id, event);
  if (report.machineAnswered) await deps.lineControl.endCall(call._id);
  return result;
}

/** What to do with an outbound call the line asks about as it is answered (after machine detection). */
export type AnswerDecision = { kind: 'stream'; callId: string } | { kind: 'hang_up' };

/**
 * The answer to an outbound call's answer request: the media stream to the agent, or a
 * hang-up for a call that is none of ours or that a machine took (its workflow told
 * `no_answer` first).
 */
export async function answerLineCall(deps: Omit<LineReportDeps, 'lineControl'>, answer: ReportedCall & { answeredByMachine: boolean }): Promise<AnswerDecision> {
  const call = await findReportedCall(deps.db, answer);
  if (!call) return { kind: 'hang_up' };
  if (answer.answeredByMachine) {
    await signalLineEvent(deps.temporal, call._id, { kind: 'ended', outcome: 'no_answer' });
    return { kind: 'hang_up' };
  }
  return { kind: 'stream', callId: call._id };
}

/** The team line's leg of a hand-over, as its line reports it: `ignored` without our call id or a meaning. */
export async function reportTransferLeg(deps: Omit<LineReportDeps, 'lineControl'>, callId: string | null, event: LineEvent | null): Promise<Exclude<LineStatusAnswer, 'unknown_call' | 'ended_by_us'>> {
  if (!callId || !event) return 'ignored';
  return signalLineEvent(deps.temporal, callId, event);
}
