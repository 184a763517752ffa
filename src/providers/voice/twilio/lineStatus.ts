import type { CallOutcome } from '../../../calls/types';
import type { LineEvent } from '../../../calls';

/** The form parameters of one Twilio request (status callback, TwiML request). */
export type TwilioParams = Record<string, string>;

/** Twilio's `Timestamp` (RFC 2822, e.g. `Wed, 25 Nov 2026 19:08:06 +0000`) as ISO; undefined when absent or unreadable. */
export function twilioTime(params: TwilioParams): string | undefined {
  const at = params.Timestamp ? Date.parse(params.Timestamp) : Number.NaN;
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}

/** Answering-machine detection said a machine (or a fax) took the call (docs/decisions/README.md: it counts as `no_answer`). */
export function answeredByMachine(params: TwilioParams): boolean {
  const by = params.AnsweredBy ?? '';
  return by.startsWith('machine') || by === 'fax';
}

/** A call that failed or was refused, by the SIP response Twilio got from the far network (docs/voice.md). */
function failureOutcome(status: string, sipCode: number | null): CallOutcome {
  if (sipCode === 603) return 'rejected';
  if (sipCode === 404 || sipCode === 484 || sipCode === 604 || sipCode === 410) return 'invalid_number';
  if (sipCode === 486 || sipCode === 600) return 'busy';
  if (sipCode !== null && sipCode >= 500 && sipCode <= 504) return 'congestion';
  return status === 'busy' ? 'busy' : 'unreachable';
}

/**
 * What one status callback of a call we carry means on the line (the table in docs/voice.md),
 * with Twilio's own time of it; null when it changes nothing the call tracks (queued,
 * initiated, ringing).
 */
export function lineEventFromStatus(params: TwilioParams): LineEvent | null {
  const at = twilioTime(params);
  const withAt = <E extends LineEvent>(event: E): E => (at ? { ...event, at } : event);
  const sip = params.SipResponseCode ? Number.parseInt(params.SipResponseCode, 10) : Number.NaN;
  const sipCode = Number.isNaN(sip) ? null : sip;
  switch (params.CallStatus) {
    case 'in-progress':
      return withAt(answeredByMachine(params) ? { kind: 'ended', outcome: 'no_answer' } : { kind: 'answered' });
    case 'completed': {
      if (answeredByMachine(params)) return withAt({ kind: 'ended', outcome: 'no_answer' });
      // Completed means connected: the answer was the call's length before its end.
      const seconds = /^\d+$/.test(params.CallDuration ?? '') ? Number(params.CallDuration) : Number.NaN;
      const answeredAt = at && Number.isFinite(seconds) ? new Date(Date.parse(at) - seconds * 1000).toISOString() : undefined;
      return withAt(answeredAt ? { kind: 'ended', outcome: 'caller_hangup', answeredAt } : { kind: 'ended', outcome: 'caller_hangup' });
    }
    case 'no-answer':
    case 'canceled':
      return withAt({ kind: 'ended', outcome: 'no_answer' });
    case 'busy':
    case 'failed':
      return withAt({ kind: 'ended', outcome: failureOutcome(params.CallStatus, sipCode) });
    default:
      return null;
  }
}

/** The team line's leg during a hand-over: its answer puts the person on the call (`human_active`). */
export function lineEventFromTransfer(params: TwilioParams): LineEvent | null {
  if (params.CallStatus !== 'in-progress' && params.CallStatus !== 'answered') return null;
  const at = twilioTime(params);
  return at ? { kind: 'human_active', at } : { kind: 'human_active' };
}
