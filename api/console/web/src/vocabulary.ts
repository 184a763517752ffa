/**
 * The one place the web console turns the service's codes into words (issue 35 §7): call
 * statuses, outcomes, result states, dispositions, next steps and the campaign exclusion
 * reasons. Pages show `say(kind, code)` and keep the code itself in a tooltip or the detail
 * (components/Said.tsx). No JSX, no DOM: the unit tests (test/unit/console/vocabulary.test.ts)
 * import it directly, and each table is typed by the server's own list, so a code added there
 * without words here is a type error.
 */
import type { CallOutcome, CallStatus, CallResult, Disposition, NextStep } from '../../../../src/calls/types';

const CALL_STATUS: Record<CallStatus, string> = {
  ringing: 'Ringing',
  dialing: 'Dialling',
  starting: 'Connecting',
  in_progress: 'On the line',
  human_handoff: 'Handing to a person',
  human_active: 'With a team member',
  completed: 'Ended',
  failed: 'Not connected',
};

const CALL_OUTCOME: Record<CallOutcome, string> = {
  caller_hangup: 'They hung up',
  agent_hangup: 'Agent ended the call',
  idle: 'Ended after silence',
  max_duration: 'Reached the longest call allowed',
  no_answer: 'No answer',
  busy: 'Line busy',
  rejected: 'Declined',
  invalid_number: 'Number does not exist',
  unreachable: 'Phone unreachable',
  congestion: 'Network busy',
  suspended: 'Workspace suspended',
  setup_error: 'Could not set up the call',
  originate_error: 'Could not place the call',
};

const RESULT_STATE: Record<CallResult['state'], string> = {
  pending: 'Being read',
  ready: 'Read',
  failed: 'Could not be read',
  none: 'Nothing to read',
};

const DISPOSITION: Record<Disposition, string> = {
  completed: 'Completed',
  partial: 'Partly answered',
  callback_requested: 'Asked to be called back',
  not_interested: 'Not interested',
  wrong_person: 'Wrong person',
  hung_up_early: 'Hung up early',
  no_conversation: 'No conversation',
  unanswered: 'Not answered',
};

const NEXT_STEP: Record<NextStep, string> = {
  none: 'Nothing more',
  call_back: 'Call back',
  send_whatsapp: 'Send a WhatsApp message',
  human_follow_up: 'A person follows up',
};

/** Why evaluate left a person out (src/campaigns/campaign.ts EXCLUSION_REASONS); lower case, as they read inside a sentence. */
const EXCLUSION: Record<string, string> = {
  invalid_destination: 'no usable phone number',
  duplicate_recipient: 'listed twice (same contact or number)',
  suppressed: 'opted out',
  missing_variable: 'a variable has no value',
  country_not_allowed: 'calls to this country are not enabled',
  channel_consent_missing: 'no consent for the channel',
};

const GOAL_MET: Record<string, string> = { yes: 'Goal met', no: 'Goal not met', unclear: 'Unclear whether the goal was met' };

const CONVERSATION_CHANNEL: Record<string, string> = { whatsapp: 'WhatsApp', voice: 'Phone call', web: 'Web chat' };

const CAMPAIGN_CHANNEL: Record<string, string> = { whatsapp: 'WhatsApp messages', voice: 'AI phone calls' };

const KINDS = {
  callStatus: CALL_STATUS,
  callOutcome: CALL_OUTCOME,
  resultState: RESULT_STATE,
  disposition: DISPOSITION,
  nextStep: NEXT_STEP,
  exclusion: EXCLUSION,
  goalMet: GOAL_MET,
  channel: CONVERSATION_CHANNEL,
  campaignChannel: CAMPAIGN_CHANNEL,
} satisfies Record<string, Record<string, string>>;

export type CodeKind = keyof typeof KINDS;

/**
 * A code in words. A code the table does not know (a newer server's) reads as itself with
 * its underscores as spaces, never as nothing.
 */
export function say(kind: CodeKind, code: string): string {
  return (KINDS[kind] as Record<string, string>)[code] ?? code.replace(/_/g, ' ');
}

/** `[code, words]` for every code of a kind: a filter's choices. */
export function choices(kind: CodeKind): [string, string][] {
  return Object.entries(KINDS[kind]);
}

/** A call's length as people say it: `45 s`, `2 min 05 s`, `1 h 02 min`. */
export function duration(seconds: number | null | undefined): string | null {
  if (seconds == null) return null;
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3_600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3_600)} h ${String(Math.floor((s % 3_600) / 60)).padStart(2, '0')} min`;
}

/** How many times a call was read, in words ("Read once", "Read 3 times"), for what the page called "Readings". */
export function timesRead(readings: number): string {
  if (readings <= 0) return 'Not read yet';
  return readings === 1 ? 'Read once' : readings === 2 ? 'Read twice' : `Read ${readings} times`;
}
