/**
 * What the API, the activities and a call campaign's run share (issue 15): the run's input
 * (also what it carries into a new run), the step activity's input and answer, and the
 * pacing constants. The run answers the same updates and query as a WhatsApp run
 * (contracts.ts), under the same workflow id (the campaign id).
 *
 * Imported by workflow code: types, constants and the SDK's define helpers only, no I/O.
 */
import { defineWorkflow } from '../temporal/workflowDefinition';
import type { CampaignRunState, RunControl } from './contracts';

/** A person owed their call-back, and when it is due (epoch ms, workflow time). */
export interface DueCallBack {
  position: number;
  dueAtMs: number;
}

export interface VoiceCampaignRunInput {
  campaignId: string;
  tenantId: string;
  recipients: number;
  startAt: string | null;
  throttlePerMinute: number;
  control: RunControl;
  /** The next position never dialled. */
  cursor: number;
  started: boolean;
  /** Positions whose call is placed and not yet folded into their outcome (at most a few dozen). */
  active: number[];
  /** Call-backs owed and not yet placed. */
  callBacks: DueCallBack[];
  /** Epoch ms before which the next call may not be placed (the throttle's spacing). */
  nextPlaceAtMs: number | null;
  maxHistoryEvents?: number;
}

export interface VoiceCampaignRunState extends CampaignRunState {
  /** Calls placed and awaited. */
  active: number;
  callBacksOwed: number;
  /** True while every live-call place of the workspace is taken. */
  waitingForPlace: boolean;
}

export type VoiceCampaignRun = (input: VoiceCampaignRunInput) => Promise<VoiceCampaignRunState>;
/** A call campaign's run (workflows/voiceCampaignRun.ts); workflow id = campaign id. */
export const voiceCampaignRunDefinition = defineWorkflow<VoiceCampaignRun>('voiceCampaignRun');

export interface VoiceStepInput {
  campaignId: string;
  tenantId: string;
  recipients: number;
  cursor: number;
  /** Positions with a call awaited: their results are folded in first. */
  active: number[];
  /** Call-backs due now, placed before new people. */
  dueCallBacks: number[];
  /** How many calls this step may place at most (0: only collect). */
  max: number;
  /** Workflow time (epoch ms) of this step: the window is judged and call-backs scheduled from it. */
  nowMs: number;
  throttlePerMinute: number;
  /** Cancelled: owed call-backs of these positions are dropped and their records finalised. */
  dropCallBacks?: number[];
}

export interface VoiceStepResult {
  cursor: number;
  /** Positions still awaited after this step (the old ones not settled plus those placed). */
  active: number[];
  /** Call-backs newly owed. */
  newCallBacks: DueCallBack[];
  /** The due call-backs this step placed (or finalised because they could not be placed). */
  placedCallBacks: number[];
  placed: number;
  /** Every live-call place is taken: try again after `CALL_PLACE_POLL_MS`. */
  waitingForPlace: boolean;
  /** The window is shut at `nowMs`: placing waits until `opensAtMs`. */
  opensAtMs: number | null;
  /** Why placing is held for everyone (`workspace_suspended`, `wallet_empty`, `daily_call_budget`, …), or null. */
  held: string | null;
  /** When the next call may be placed at the throttle (epoch ms). */
  nextPlaceAtMs: number;
}

/** A step places calls for about this long at the throttle. */
export const CALL_STEP_SPAN_MS = 5_000;
/** At most this many calls per step (the live-call limit is 10). */
export const CALL_STEP_MAX = 10;
/**
 * How often the run looks at its awaited calls (and for a free live-call place): an activity
 * read of the calls' read models, not a signal per call (docs/decisions.md "Voice campaigns").
 */
export const CALL_PLACE_POLL_MS = 10_000;
/** A call-back goes no sooner than this after the interrupted call's reading. */
export const CALL_BACK_DELAY_MS = 10 * 60_000;
/** While calls are held for the whole workspace, the run looks again this often. */
export const CALL_HOLD_POLL_MS = 5 * 60_000;
/** Ring time of campaign calls (POST /calls default). */
export const CAMPAIGN_CALL_RING_SECONDS = 30;
