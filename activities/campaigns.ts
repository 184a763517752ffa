import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from 'mongodb';
import { moveCampaignFromRun } from '../src/campaigns/control';
import { CAMPAIGN_CONTROL_CHECK_MS, type CampaignMoveInput, type SendBatchInput, type SendBatchResult } from '../src/campaigns/contracts';
import { scheduleLateRecounts } from '../src/campaigns/whatsapp/lateRecounts';
import { recount } from '../src/campaigns/progress';
import { skipOutstanding } from '../src/campaigns/recipients';
import { settleOrphanedBatchHolds } from '../src/campaigns/whatsapp/conversationHold';
import { sendCampaignBatch, type SendBatchDeps } from '../src/campaigns/whatsapp/sendBatch';
import type { EventPublisher } from '../src/events/publisher';
import { SendInProgress } from '../src/messaging/sendMessage';
import type { WhatsAppProvider } from '../src/messaging/whatsAppSender';

export interface CampaignActivityDeps {
  db: Db;
  events: EventPublisher;
  whatsapp: WhatsAppProvider;
  deploymentChannels: readonly string[];
  now?: () => Date;
  /**
   * Waits between a batch's sends. Tests on the time-skipping server pass one that returns
   * at once: their workflow clock runs ahead of this one, and the planned times are asserted.
   */
  pace?: (ms: number) => Promise<void>;
  /** How often a batch looks whether its campaign was paused or cancelled (CAMPAIGN_CONTROL_CHECK_MS). */
  controlCheckMs?: number;
}

/**
 * The pause between a batch's sends, cut short when the activity is cancelled (its worker
 * shutting down, say): the batch then stops where it is and its retry, on this worker or
 * another, goes on from the recipients still queued, instead of a worker's shutdown waiting
 * out a batch of up to two minutes.
 */
const sleepUnlessCancelled = (ms: number) => Context.current().sleep(ms);

/** A WhatsApp campaign's run's activities and the steps both runs share (src/campaigns/whatsapp/sendBatch.ts, recipients.ts, progress.ts). */
export function createCampaignActivities(deps: CampaignActivityDeps) {
  const now = deps.now ?? (() => new Date());
  const pace = deps.pace ?? sleepUnlessCancelled;
  const batch: SendBatchDeps = { db: deps.db, events: deps.events, whatsapp: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now, controlCheckMs: deps.controlCheckMs ?? CAMPAIGN_CONTROL_CHECK_MS };

  return {
    /**
     * One batch of sends, heartbeating the position reached after each recipient. Safe to
     * retry (src/campaigns/whatsapp/sendBatch.ts). A send whose dead attempt's lease has not
     * run out yet retries the batch later (not an error).
     */
    async sendCampaignBatch(input: SendBatchInput): Promise<SendBatchResult> {
      try {
        return await sendCampaignBatch(batch, input, { pace, heartbeat: (next) => Context.current().heartbeat(next) });
      } catch (err) {
        if (err instanceof SendInProgress) throw ApplicationFailure.retryable(err.message, 'SendInProgress');
        throw err;
      }
    },

    /**
     * Skips the queued recipients of a cancelled campaign from `from`, heartbeating the
     * position reached after each write; a retried attempt goes on from the last position
     * heartbeated. Answers where it stopped. Safe to repeat.
     */
    skipOutstanding: (input: { campaignId: string; tenantId: string; from: number; recipients: number; at: string }): Promise<number> =>
      skipOutstanding(
        deps.db,
        { campaignId: input.campaignId, from: input.from, recipients: input.recipients, at: new Date(input.at) },
        { resumeAt: Context.current().info.heartbeatDetails, report: (reached) => Context.current().heartbeat(reached) },
      ),

    /**
     * Counts recipients by state into the counters (progress.ts), and settles any
     * conversation hold a dead batch attempt of the campaign left (the run's end and its
     * later recounts). Safe to repeat.
     */
    async recountCampaign(input: { campaignId: string; tenantId: string; recipients: number; chunks: 'all' | 'movable'; at: string }): Promise<void> {
      const heartbeat = setInterval(() => Context.current().heartbeat(), 5_000);
      try {
        await settleOrphanedBatchHolds(deps.db, input.tenantId, input.campaignId, now());
        await recount(deps.db, { ...input, at: new Date(input.at) });
      } finally {
        clearInterval(heartbeat);
      }
    },

    /** Hands the finished campaign's late recounts to the workers' pass (src/campaigns/whatsapp/lateRecounts.ts). Safe to repeat. */
    async handOverLateRecounts(input: { campaignId: string; tenantId: string; recipients: number; at: string }): Promise<void> {
      await scheduleLateRecounts(deps.db, { ...input, at: new Date(input.at) });
    },

    /** The run's own status moves; the time comes from the workflow. */
    async moveCampaign(input: CampaignMoveInput): Promise<void> {
      await moveCampaignFromRun({ db: deps.db, now, events: deps.events }, { ...input, at: new Date(input.at) });
    },
  };
}

export type CampaignActivities = ReturnType<typeof createCampaignActivities>;
