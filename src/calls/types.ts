/**
 * The call's shapes shared by the API, the workflow, the activities and the providers
 * (api-core §2 Call, Capture, Result). Plain data only: workflow code imports these, and the
 * web console takes its call status and outcome lists from here, so this file imports nothing.
 */

export const CAPTURE_FIELD_TYPES = ['text', 'yes_no', 'choice', 'multi_choice', 'number', 'rating', 'date'] as const;
export type CaptureFieldType = (typeof CAPTURE_FIELD_TYPES)[number];

export const CAPTURE_DISPLAYS = ['auto', 'bars', 'donut', 'stat', 'list', 'hidden'] as const;
export type CaptureDisplay = (typeof CAPTURE_DISPLAYS)[number];

/** A capture field as echoed: every key filled in. */
export interface CaptureField {
  key: string;
  label: string;
  type: CaptureFieldType;
  hint: string | null;
  /** Merged case-insensitively; `[]` on types without options. */
  options: string[];
  required: boolean;
  display: CaptureDisplay;
}

export interface Capture {
  goal: string | null;
  fields: CaptureField[];
  /** `equals` normalised: `yes`/`no`, the option as written, or `1`…`5`. */
  success: { field: string; equals: string } | null;
}

export const CALL_OUTCOMES = [
  'caller_hangup',
  'agent_hangup',
  'idle',
  'max_duration',
  'no_answer',
  'busy',
  'rejected',
  'invalid_number',
  'unreachable',
  'congestion',
  'suspended',
  'setup_error',
  'originate_error',
] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** Outcomes of a call that was never answered: decided by the network. */
export const NETWORK_OUTCOMES = ['no_answer', 'busy', 'rejected', 'invalid_number', 'unreachable', 'congestion'] as const;
export type NetworkOutcome = (typeof NETWORK_OUTCOMES)[number];

export const CALL_STATUSES = ['ringing', 'dialing', 'starting', 'in_progress', 'human_handoff', 'human_active', 'completed', 'failed'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export type CallDirection = 'outbound' | 'inbound';

/** One turn of a call's transcript. `user` is the person; `model` the agent; `human` a team member. */
export interface TranscriptTurn {
  role: 'user' | 'model' | 'human';
  text: string;
  /** Seconds since the call was answered. */
  at_seconds: number;
}

export const DISPOSITIONS = [
  'completed',
  'partial',
  'callback_requested',
  'not_interested',
  'wrong_person',
  'hung_up_early',
  'no_conversation',
  'unanswered',
] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

export type GoalMet = 'yes' | 'no' | 'unclear';
export type Sentiment = 'positive' | 'neutral' | 'negative';
export const NEXT_STEPS = ['none', 'call_back', 'send_whatsapp', 'human_follow_up'] as const;
export type NextStep = (typeof NEXT_STEPS)[number];

/** What a reader returns for one call, before the service applies types and the success rule. */
export interface Reading {
  /** The reader may propose only the six dispositions that need reading. */
  disposition: Exclude<Disposition, 'no_conversation' | 'unanswered'>;
  goal_met: GoalMet;
  summary: string;
  sentiment: Sentiment | null;
  next_step: NextStep;
  next_step_reason: string | null;
  /** Raw answers by field key; values that do not fit the field's type are dropped later. */
  answers: Record<string, unknown>;
}

export interface ReadInput {
  callId: string;
  /**
   * The call's workspace and the person's number: the simulated reader finds its script by them
   * without reading the call again (a real reader sends neither to its model).
   */
  tenantId?: string;
  to?: string;
  direction: CallDirection;
  /** The capture's goal, else the call's purpose (api-core §2 `goal_met`). */
  goal: string | null;
  purpose: string | null;
  capture: Capture | null;
  transcript: TranscriptTurn[];
  /** When the call was answered (ISO), so relative dates ("tomorrow") read the same on every retry. */
  answeredAt: string;
}

/**
 * What a reading learnt of a call, one shape for one call's `result` and for a call campaign
 * person's outcome merged across their calls (src/campaigns/voice/mergedOutcome.ts).
 */
export interface CallLearning {
  disposition: Disposition | null;
  goal_met: GoalMet | null;
  success: boolean | null;
  summary: string | null;
  sentiment: Sentiment | null;
  next_step: NextStep | null;
  next_step_reason: string | null;
  /** Answers by field key (an unanswered field is absent). */
  fields: Record<string, string | boolean | number | string[]>;
  captured: number;
  expected: number;
  missing_required: string[];
}

/** The call's `result` as the API returns it. */
export interface CallResult extends CallLearning {
  state: 'pending' | 'ready' | 'failed' | 'none';
  read_at: string | null;
}

export function pendingResult(): CallResult {
  return {
    state: 'pending',
    disposition: null,
    goal_met: null,
    success: null,
    summary: null,
    sentiment: null,
    next_step: null,
    next_step_reason: null,
    fields: {},
    captured: 0,
    expected: 0,
    missing_required: [],
    read_at: null,
  };
}
