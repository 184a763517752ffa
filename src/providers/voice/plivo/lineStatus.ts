import type { CallOutcome } from '../../../calls/types';
import type { LineEvent } from '../../../calls';

/** The form parameters of one Plivo request (answer, hangup, ring, Dial callback). */
export type PlivoParams = Record<string, string>;

/**
 * Answering-machine detection (`machine_detection=true`, synchronous) said a machine took the
 * call: Plivo fetches the answer URL with `Machine=true` (docs/decisions/README.md: it counts as
 * `no_answer`).
 */
export function answeredByMachine(params: PlivoParams): boolean {
  return params.Machine === 'true';
}

/** Standard telephony hang-up causes (Q.850 names, Plivo's `HangupCause`) that say why a call failed. */
const CAUSE_OUTCOME: Record<string, CallOutcome> = {
  CALL_REJECTED: 'rejected',
  UNALLOCATED_NUMBER: 'invalid_number',
  INVALID_NUMBER_FORMAT: 'invalid_number',
  NO_ROUTE_DESTINATION: 'invalid_number',
  NUMBER_CHANGED: 'invalid_number',
  USER_BUSY: 'busy',
  NORMAL_CIRCUIT_CONGESTION: 'congestion',
  SWITCH_CONGESTION: 'congestion',
  NETWORK_OUT_OF_ORDER: 'congestion',
  NORMAL_TEMPORARY_FAILURE: 'congestion',
  NO_ANSWER: 'no_answer',
  NO_USER_RESPONSE: 'no_answer',
};

/**
 * What one hangup (or ring) report of a call we carry means on the line (the table in
 * docs/voice.md, "Plivo"), at `at` (when the report reached us: Plivo's requests carry no time
 * of the event in a documented zone); null when it changes nothing the call tracks (ringing).
 */
export function lineEventFromHangup(params: PlivoParams, at: Date): LineEvent | null {
  const when = at.toISOString();
  const ended = (outcome: CallOutcome): LineEvent => ({ kind: 'ended', outcome, at: when });
  switch (params.CallStatus) {
    case 'completed': {
      // Completed means connected: its length is the time since the answer.
      const seconds = /^\d+$/.test(params.Duration ?? '') ? Number(params.Duration) : Number.NaN;
      return Number.isFinite(seconds)
        ? { kind: 'ended', outcome: 'caller_hangup', at: when, answeredAt: new Date(at.getTime() - seconds * 1000).toISOString() }
        : ended('caller_hangup');
    }
    case 'no-answer':
    case 'cancel':
      return ended('no_answer');
    case 'busy':
      return ended(CAUSE_OUTCOME[params.HangupCause ?? ''] ?? 'busy');
    case 'failed':
    case 'timeout':
      return ended(CAUSE_OUTCOME[params.HangupCause ?? ''] ?? 'unreachable');
    default:
      return null;
  }
}

/** The team line's leg during a hand-over (the Dial's callbackUrl): its answer puts the person on the call. */
export function lineEventFromDial(params: PlivoParams, at: Date): LineEvent | null {
  return params.DialAction === 'answer' || params.DialBLegStatus === 'answer' ? { kind: 'human_active', at: at.toISOString() } : null;
}
