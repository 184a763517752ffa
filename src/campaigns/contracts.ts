/**
 * What the API, the activities and the campaign run share (campaigns-tickets-dues §3, §4):
 * the run's input (also what it carries into a new run), its updates and query, the batch
 * activity's input and answer, and the workflow id. One run per campaign, and its workflow id
 * is the `campaign_id`, so the engine refuses a second run of the same campaign.
 *
 * Imported by workflow code: the SDK's define* helpers and types only, no I/O.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../temporal/workflowDefinition';

/** What a person or the integration asked of the run: `running`, `paused` or `cancelled`. */
export type RunControl = 'running' | 'paused' | 'cancelled';

/** What every campaign run starts from and carries across continue-as-new, WhatsApp or voice. */
export interface RunInputBase {
  campaignId: string;
  tenantId: string;
  /** Staged recipients: positions 0 to `recipients - 1`. */
  recipients: number;
  /** ISO; in the future: the run waits (the campaign is `scheduled`) until then. */
  startAt: string | null;
  throttlePerMinute: number;
  control: RunControl;
  /** Carried across continue-as-new: the next position never sent (or dialled). */
  cursor: number;
  /** True once the scheduled start has passed (`scheduled` moved to `running`). */
  started: boolean;
  /** Ends a run's history early (tests); default `CAMPAIGN_RUN_MAX_HISTORY_EVENTS`. */
  maxHistoryEvents?: number;
}

export interface CampaignRunInput extends RunInputBase {
  /** Epoch ms before which the next send may not go (the throttle's spacing across batches). */
  nextSendAtMs: number | null;
}

/** What the updates answer and the query reads. */
export interface CampaignRunState {
  control: RunControl;
  cursor: number;
  recipients: number;
  /** Why sending is held (`workspace_suspended`, `allowance_exhausted`, …), or null. */
  held: string | null;
  /** `sending`, then `settling` (counting late statuses) once every recipient is final. */
  phase: 'waiting' | 'sending' | 'settling';
}

export type CampaignRun = (input: CampaignRunInput) => Promise<CampaignRunState>;
/** One campaign's run (workflows/campaigns/campaignRun.ts). */
export const campaignRunDefinition = defineWorkflow<CampaignRun>('campaignRun');

export function campaignRunWorkflowId(campaignId: string): string {
  return campaignId;
}

/** Stop sending for now; an update on a cancelled or finished run is refused by its validator. */
export const pauseCampaignUpdate = defineUpdate<CampaignRunState>('pauseCampaign');
/** Continue a paused run: no recipient is sent twice, the audience is not rebuilt. */
export const resumeCampaignUpdate = defineUpdate<CampaignRunState>('resumeCampaign');
/** Stop for good: everyone outstanding is skipped. */
export const cancelCampaignUpdate = defineUpdate<CampaignRunState>('cancelCampaign');
export const campaignRunStateQuery = defineQuery<CampaignRunState>('campaignRunState');

/**
 * History events one run may hold before it continues as new. A batch costs about eleven
 * events (a workflow task, the activity, the pause timer, the next task), so one run holds
 * about 270 batches.
 */
export const CAMPAIGN_RUN_MAX_HISTORY_EVENTS = 3_000;

/**
 * A batch spans about this long at the throttle. Each batch costs the same whatever its size
 * (its workflow steps, its opening reads, its hold and its recount), so a longer batch costs a
 * send less: at 10 s, 0.10 history events a send instead of 0.17 (docs/decisions/performance.md,
 * "third round"). Pauses and STOPs are looked at every CAMPAIGN_CONTROL_CHECK_MS whatever the span.
 */
export const CAMPAIGN_BATCH_SPAN_MS = 10_000;
/**
 * How far behind its plan a batch catches up (issue 28). A batch starts a little after its
 * planned first send (the previous batch's closing writes, a workflow task, the new batch's
 * reads); paced from its own start, every batch lost that much and 10 campaigns at 600 a
 * minute held 89–93 % of the cap. Behind by up to this much, a batch sends at twice the
 * throttle's rate until it is back on plan: never a burst, and never before a send's planned
 * time. A retried batch, far behind, catches up on this much only.
 */
export const CAMPAIGN_CATCH_UP_MS = 1_000;
/**
 * A batch looks at its campaign's status at most this often between sends, and stops once it
 * is paused or cancelled: a pause is felt within about a second, not at the batch's end.
 */
export const CAMPAIGN_CONTROL_CHECK_MS = 1_000;
/** At most this many sends per batch (600 a minute: 100 per 10 s). */
export const CAMPAIGN_BATCH_MAX = 100;
/** While the workspace is suspended (or the plan used up), the run looks again this often. */
export const CAMPAIGN_HOLD_POLL_MS = 5 * 60_000;
/**
 * After every recipient is final, the run counts late statuses (delivered, read) at these
 * delays before it ends; a status after the last is recorded on its recipient but not counted.
 */
export const CAMPAIGN_SETTLE_DELAYS_MS = [60_000, 15 * 60_000, 60 * 60_000, 6 * 60 * 60_000, 24 * 60 * 60_000];
/** Positions whose recipients are counted together (a chunk's counts are rewritten whole). */
export const CAMPAIGN_COUNT_CHUNK = 100;
/** Cancelled recipients are skipped this many per activity. */
export const CAMPAIGN_SKIP_CHUNK = 500;
/**
 * A WhatsApp campaign's cancel answers once the run has skipped everyone outstanding and
 * counted them, if that takes at most this long (2,000 people settled in 0.7 to 1.7 s,
 * docs/campaigns.md "Recipients and counters"); past it, the answer shows them as skipped ahead
 * of the run (progress.ts `countsView`).
 */
export const CAMPAIGN_CANCEL_SETTLE_WAIT_MS = 3_000;
/** How often a cancel looks whether the run has counted everyone. */
export const CAMPAIGN_CANCEL_SETTLE_POLL_MS = 100;

export interface SendBatchInput {
  campaignId: string;
  tenantId: string;
  /** First position of the batch. */
  from: number;
  /** Positions past the last staged one are never read. */
  recipients: number;
  /** How many to send at most. */
  max: number;
  /** When the batch's first send is planned (epoch ms, workflow time); the others follow at the spacing. */
  plannedStartMs: number;
  throttlePerMinute: number;
}

export type SendBatchResult =
  /** `next`: the first position not yet done; `nextSendAtMs`: when the one after the last may go. */
  | { kind: 'sent'; next: number; nextSendAtMs: number; sent: number; failed: number; skipped: number }
  /** The window is shut at the planned time: nothing sent; it opens at `opensAtMs`. */
  | { kind: 'closed'; next: number; opensAtMs: number }
  /** Sending is held for the whole campaign (`reason`); `next` is where it stopped. */
  | { kind: 'held'; next: number; reason: string };

export interface CampaignMoveInput {
  campaignId: string;
  tenantId: string;
  trigger: 'start' | 'complete' | 'fail';
  /** Workflow time (ISO), so a retry records the same instant. */
  at: string;
}

/*
 * Call campaigns (issue 15): a call campaign's run (workflows/campaigns/voiceCampaignRun.ts) answers the
 * same updates and query as a WhatsApp run, under the same workflow id (the campaign id). Its
 * input, its step activity's input and answer, and the pacing constants follow.
 */

/**
 * Sent by a campaign call's finish step (activities/calls.ts) to its campaign's run: a
 * live-call place is free, so a run waiting for one looks now instead of at its next poll.
 * Best effort: a lost signal only delays the run to that poll.
 */
export const campaignCallEndedSignal = defineSignal<[{ callId: string }]>('campaignCallEnded');

/** A person owed their call-back, and when it is due (epoch ms, workflow time). */
export interface DueCallBack {
  position: number;
  dueAtMs: number;
}

export interface VoiceCampaignRunInput extends RunInputBase {
  /** Positions whose call is placed and not yet folded into their outcome (at most a few dozen). */
  active: number[];
  /** Call-backs owed and not yet placed. */
  callBacks: DueCallBack[];
  /**
   * `schedule.recipient_time_zone`: people passed over because their own window was shut, and
   * when it opens (at most `CALL_WAITING_MAX`). Absent in runs started before it.
   */
  waiting?: DueCallBack[];
  /** Epoch ms before which the next call may not be placed (the throttle's spacing). */
  nextPlaceAtMs: number | null;
}

export interface VoiceCampaignRunState extends CampaignRunState {
  /** Calls placed and awaited. */
  active: number;
  callBacksOwed: number;
  /** True while every live-call place of the workspace is taken. */
  waitingForPlace: boolean;
  /** People waiting for their own window to open (`schedule.recipient_time_zone`). */
  waitingForOwnWindow: number;
}

export type VoiceCampaignRun = (input: VoiceCampaignRunInput) => Promise<VoiceCampaignRunState>;
/** A call campaign's run (workflows/campaigns/voiceCampaignRun.ts); workflow id = campaign id. */
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
  /** `recipient_time_zone`: people whose own window has opened, called after due call-backs and before new people. */
  dueWaiting?: number[];
  /** How many more people the run can hold waiting for their own window. */
  waitingRoom?: number;
  /** Cancelled: people waiting for their own window, skipped. */
  dropWaiting?: number[];
}

export interface VoiceStepResult {
  cursor: number;
  /** Positions still awaited after this step (the old ones not settled plus those placed). */
  active: number[];
  /** Call-backs newly owed. */
  newCallBacks: DueCallBack[];
  /** The due call-backs this step placed (or finalised because they could not be placed). */
  placedCallBacks: number[];
  /*
   * `recipient_time_zone` (optional: results recorded in histories before it lack them, and
   * a replay reads those).
   */
  /** People now waiting for their own window, new or again. */
  waiting?: DueCallBack[];
  /** The due waiting people this step called, passed, or set waiting again. */
  settledWaiting?: number[];
  /** The run holds no more waiting people and the next new person's window is shut until then. */
  cursorOpensAtMs?: number | null;
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
 * read of the calls' read models. A run waiting for a place is woken sooner by
 * `campaignCallEndedSignal` when one of its calls ends; this poll is the fallback, and the
 * only way it learns of a place a call of another kind frees (docs/decisions/campaigns.md "Voice campaigns").
 */
export const CALL_PLACE_POLL_MS = 10_000;
/** A call-back goes no sooner than this after the interrupted call's reading. */
export const CALL_BACK_DELAY_MS = 10 * 60_000;
/**
 * At most this many people wait in the run's state for their own window
 * (`recipient_time_zone`); past that, new people wait in position order.
 */
export const CALL_WAITING_MAX = 1_000;
/** While calls are held for the whole workspace, the run looks again this often. */
export const CALL_HOLD_POLL_MS = 5 * 60_000;
/** Ring time of campaign calls (POST /calls default). */
export const CAMPAIGN_CALL_RING_SECONDS = 30;
