/**
 * What the API, the activities and the campaign run share (campaigns-tickets-dues §3, §4):
 * the run's input (also what it carries into a new run), its updates and query, the batch
 * activity's input and answer, and the workflow id. One run per campaign, and its workflow id
 * is the `campaign_id`, so the engine refuses a second run of the same campaign.
 *
 * Imported by workflow code: the SDK's define* helpers and types only, no I/O.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../temporal/workflowDefinition';

/** What a person or the integration asked of the run: `running`, `paused` or `cancelled`. */
export type RunControl = 'running' | 'paused' | 'cancelled';

export interface CampaignRunInput {
  campaignId: string;
  tenantId: string;
  /** Staged recipients: positions 0 to `recipients - 1`. */
  recipients: number;
  /** ISO; in the future: the run waits (the campaign is `scheduled`) until then. */
  startAt: string | null;
  throttlePerMinute: number;
  control: RunControl;
  /** Carried across continue-as-new: the next position to send. */
  cursor: number;
  /** True once the scheduled start has passed (`scheduled` moved to `running`). */
  started: boolean;
  /** Epoch ms before which the next send may not go (the throttle's spacing across batches). */
  nextSendAtMs: number | null;
  /** Ends a run's history early (tests); default `CAMPAIGN_RUN_MAX_HISTORY_EVENTS`. */
  maxHistoryEvents?: number;
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
/** One campaign's run (workflows/campaignRun.ts). */
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

/** A batch spans about this long at the throttle: a pause is felt within it. */
export const CAMPAIGN_BATCH_SPAN_MS = 5_000;
/** At most this many sends per batch (600 a minute: 50 per 5 s). */
export const CAMPAIGN_BATCH_MAX = 50;
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
