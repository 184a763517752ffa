import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from 'mongodb';
import { findCampaign } from '../src/campaigns/campaign';
import { moveCampaignFromRun } from '../src/campaigns/control';
import { CAMPAIGN_CONTROL_CHECK_MS, CAMPAIGN_SKIP_CHUNK, type CampaignMoveInput, type SendBatchInput, type SendBatchResult } from '../src/campaigns/contracts';
import { scheduleLateRecounts } from '../src/campaigns/lateRecounts';
import { chunkOf, recount } from '../src/campaigns/progress';
import { moveQueuedRecipients, type QueuedMove, type RecipientReason } from '../src/campaigns/recipients';
import { isWindowOpen, nextOpenTime } from '../src/domain/sendWindow';
import { catchUpSendAt } from '../src/campaigns/throttle';
import { readRecipientBatch, recipientId, type CampaignRecipientDoc } from '../src/campaigns/staging';
import { BULK_WRITE_MAX } from '../src/db/bulkWrite';
import { collections } from '../src/db/collections';
import type { EventPublisher } from '../src/events/publisher';
import { findByIds } from '../src/db/findByIds';
import { groupAcceptedSendRecords, type AcceptedSendRecords } from '../src/messaging/acceptedSendRecords';
import { settleConversationHold, settleOrphanedHolds, takeConversationHold, type HeldConversations } from '../src/messaging/conversationHold';
import { campaignSendIntentKey, sendIntentsCollection, type SendIntentDoc } from '../src/messaging/sendIntents';
import { SendInProgress, SendOutcomeUnknown, SendRefusal, lookUpSendContext, sendWhatsAppMessage, type SendContext, type SendRefusalReason } from '../src/messaging/sendMessage';
import type { WhatsAppProvider } from '../src/providers/whatsapp/provider';

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
 * Refusals that would refuse every recipient alike: the run holds (and looks again later)
 * instead of failing the audience. The others concern one recipient.
 */
const HOLDING: ReadonlySet<SendRefusalReason> = new Set([
  'unsupported_channel',
  'workspace_suspended',
  'allowance_exhausted',
  'channel_dormant',
  'channel_not_connected',
  'template_not_found',
  'template_media_missing',
  'template_variables',
]);

/**
 * The pause between a batch's sends, cut short when the activity is cancelled (its worker
 * shutting down, say): the batch then stops where it is and its retry, on this worker or
 * another, goes on from the recipients still queued, instead of a worker's shutdown waiting
 * out a batch of up to two minutes.
 */
const sleepUnlessCancelled = (ms: number) => Context.current().sleep(ms);

export function createCampaignActivities(deps: CampaignActivityDeps) {
  const now = deps.now ?? (() => new Date());
  const pace = deps.pace ?? sleepUnlessCancelled;
  const controlCheckMs = deps.controlCheckMs ?? CAMPAIGN_CONTROL_CHECK_MS;

  /**
   * Whether the campaign was paused or cancelled since the batch began. The API writes the
   * status only after the run has taken the update, so a batch that stops here finds the run
   * paused (or cancelled) when it returns, never a run that starts the next batch at once.
   */
  async function stoppedByControl(campaignId: string, tenantId: string): Promise<boolean> {
    const current = await findCampaign(deps.db, tenantId, campaignId);
    return current?.status === 'paused' || current?.status === 'cancelled';
  }

  /**
   * One recipient through the send use case; answers the recipient's move (written with the
   * batch's others), or a reason to hold.
   */
  async function sendOne(
    campaign: { _id: string; tenant_id: string; sender_id: string | null; template: { name: string; language: string | null } },
    doc: CampaignRecipientDoc,
    plannedAt: number,
    context: SendContext,
    earlier: SendIntentDoc | null,
    records: AcceptedSendRecords,
  ): Promise<QueuedMove | { hold: string }> {
    // Never before its planned time (the time-skipping server's clock runs ahead of this one).
    const at = new Date(Math.max(plannedAt, now().getTime()));
    try {
      const sent = await sendWhatsAppMessage(
        { db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now },
        {
          tenantId: campaign.tenant_id,
          to: doc.to,
          template: { name: campaign.template.name, language: campaign.template.language, variables: doc.variables },
          senderId: campaign.sender_id,
          metadata: {},
          intentKey: campaignSendIntentKey(campaign.tenant_id, campaign._id, doc._id),
          campaign: { campaignId: campaign._id, recipientId: doc._id },
          context,
          earlierIntent: earlier,
          recordLater: records.defer,
        },
      );
      return { id: doc._id, to: 'sent', at, messageId: sent.message_id };
    } catch (err) {
      if (err instanceof SendRefusal) {
        if (HOLDING.has(err.reason)) return { hold: err.reason };
        const reason: RecipientReason = err.reason === 'suppressed' ? 'suppressed' : 'provider_error';
        return { id: doc._id, to: reason === 'suppressed' ? 'skipped' : 'failed', at, reason };
      }
      if (err instanceof SendOutcomeUnknown) {
        // An attempt died between recording the intent and the provider's answer: it may
        // have gone out, so it is never sent again (at most once).
        return { id: doc._id, to: 'failed', at, reason: 'outcome_unknown' };
      }
      if (err instanceof SendInProgress) {
        // A dead attempt's lease has not run out yet: retry the batch later (not an error).
        throw ApplicationFailure.retryable(err.message, 'SendInProgress');
      }
      throw err;
    }
  }

  return {
    /**
     * Sends up to `max` recipients from `from`, the n-th no earlier than `plannedStartMs + n ×
     * spacing`, inside the campaign's window; heartbeats after each. Safe to retry: a
     * recipient no longer `queued` was done by an earlier attempt, and the send use case
     * finds an earlier attempt's intent by campaign and recipient instead of sending again.
     * Every time comes from the workflow, so a retry plans the same sends.
     */
    async sendCampaignBatch(input: SendBatchInput): Promise<SendBatchResult> {
      const campaign = await findCampaign(deps.db, input.tenantId, input.campaignId);
      if (!campaign || !campaign.template) throw ApplicationFailure.nonRetryable(`campaign ${input.campaignId} has no record or no template`, 'ReadModelMissing');
      const workspace = await collections(deps.db).workspaces.findOne({ _id: input.tenantId });
      if (!workspace || workspace.suspended) return { kind: 'held', next: input.from, reason: 'workspace_suspended' };
      const window = { startHour: campaign.schedule.send_window_start_hour, endHour: campaign.schedule.send_window_end_hour };
      const zone = campaign.schedule.timezone;
      const start = new Date(input.plannedStartMs);
      if (!isWindowOpen(start, window, zone)) return { kind: 'closed', next: input.from, opensAtMs: nextOpenTime(start, window, zone).getTime() };

      const spacing = 60_000 / input.throttlePerMinute;
      const count = Math.min(input.max, input.recipients - input.from);
      const docs = await readRecipientBatch(deps.db, input.campaignId, input.from, count);
      const template = { name: campaign.template.name, language: campaign.template.language };
      const tally = { sent: 0, failed: 0, skipped: 0 };
      // Once per batch, not per send: the sender and template lookups scan their collections on FerretDB.
      const queued = docs.filter((d) => d.state === 'queued');
      const looked = queued.length > 0 ? await lookUpSendContext(deps.db, campaign.tenant_id, campaign.sender_id, template) : null;
      // The batch's conversations in one plan write instead of one lease a send; settled below.
      const hold: HeldConversations | null =
        queued.length > 0
          ? await takeConversationHold(deps.db, { tenantId: input.tenantId, campaignId: input.campaignId, from: input.from, positions: count, wanted: queued.length, now })
          : null;
      const context: SendContext | null = looked && { ...looked, hold };
      const settle = () => (hold ? settleConversationHold(deps.db, input.tenantId, hold) : Promise.resolve());
      // An earlier attempt's intents, read once for the batch instead of once per send.
      const intentKey = (doc: CampaignRecipientDoc) => campaignSendIntentKey(campaign.tenant_id, campaign._id, doc._id);
      const earlier = new Map((await findByIds(sendIntentsCollection(deps.db), queued.map(intentKey))).map((intent) => [intent._id, intent]));
      // The accepted sends' records, written in groups; flushed before the recipients move out of `queued`.
      const records = groupAcceptedSendRecords({ db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now });
      // The batch's recipients move out of `queued` in one write after its sends: a worker
      // killed before it leaves them queued, and the retried batch finds each send's intent
      // (recorded before the provider was called) instead of sending again.
      const moves: QueuedMove[] = [];
      let next = input.from;
      let done = 0;
      let held: string | null = null;
      let stopped = false;
      // Paced from this attempt's own start: the planned offsets, on this process's clock,
      // less what the batch is behind its plan (up to CAMPAIGN_CATCH_UP_MS, at twice the rate).
      const startedAt = Date.now();
      const paced = { startedAt, plannedStartMs: input.plannedStartMs };
      let checkedAt = startedAt;
      try {
        for (const doc of docs) {
          const plannedAt = input.plannedStartMs + Math.round(done * spacing);
          if (!isWindowOpen(new Date(plannedAt), window, zone)) {
            stopped = true;
            break;
          }
          if (doc.state === 'queued') {
            const wait = catchUpSendAt(paced, plannedAt - input.plannedStartMs) - Date.now();
            if (wait > 0) await pace(wait);
            if (done > 0 && Date.now() - checkedAt >= controlCheckMs) {
              checkedAt = Date.now();
              if (await stoppedByControl(input.campaignId, input.tenantId)) {
                stopped = true;
                break;
              }
            }
            const outcome = await sendOne({ ...campaign, template }, doc, plannedAt, context!, earlier.get(intentKey(doc)) ?? null, records);
            if ('hold' in outcome) {
              held = outcome.hold;
              stopped = true;
              break;
            }
            moves.push(outcome);
            tally[outcome.to] += 1;
            done += 1;
          }
          next = doc.position + 1;
          Context.current().heartbeat(next);
        }
      } catch (err) {
        // What was decided before the failure is kept when the database allows; the retry redoes the rest.
        // A recipient whose records failed stays queued with them, so the retry finishes them (resume).
        await records
          .flush()
          .then(() => moveQueuedRecipients(deps.db, moves))
          .catch(() => undefined);
        // Settled when the database answers; if not, the hold is orphaned and a later batch or recount settles it from the intents.
        await settle().catch(() => undefined);
        throw err;
      }
      await records.flush();
      await moveQueuedRecipients(deps.db, moves);
      await settle();
      // A position with no staged document (none is expected) is passed, never waited on.
      if (!stopped) next = input.from + count;
      // The chunks of this batch and of the batch before it, whose statuses are still arriving, are counted now.
      const firstChunk = chunkOf(Math.max(0, input.from - input.max));
      const lastChunk = chunkOf(Math.max(input.from, next - 1));
      await recount(deps.db, {
        campaignId: input.campaignId,
        tenantId: input.tenantId,
        recipients: input.recipients,
        chunks: Array.from({ length: lastChunk - firstChunk + 1 }, (_, i) => firstChunk + i),
        at: now(),
      });
      if (held) return { kind: 'held', next, reason: held };
      return { kind: 'sent', next, nextSendAtMs: input.plannedStartMs + Math.round(done * spacing), ...tally };
    },

    /**
     * Skips the queued recipients of a cancelled campaign from `from`, one bulk write of
     * `BULK_WRITE_MAX` at a time, heartbeating the position reached after each; a retried
     * attempt goes on from the last position heartbeated. Answers where it stopped. Safe to repeat.
     */
    async skipOutstanding(input: { campaignId: string; tenantId: string; from: number; recipients: number; at: string }): Promise<number> {
      const until = Math.min(input.recipients, input.from + CAMPAIGN_SKIP_CHUNK);
      const at = new Date(input.at);
      const reached: unknown = Context.current().info.heartbeatDetails;
      const start = typeof reached === 'number' ? Math.min(until, Math.max(input.from, reached)) : input.from;
      for (let n = start; n < until; n += BULK_WRITE_MAX) {
        const end = Math.min(until, n + BULK_WRITE_MAX);
        const ids = Array.from({ length: end - n }, (_, i) => recipientId(input.campaignId, n + i));
        await moveQueuedRecipients(deps.db, ids.map((id) => ({ id, to: 'skipped', at, reason: 'cancelled' })));
        Context.current().heartbeat(end);
      }
      return until;
    },

    /**
     * Counts recipients by state into the counters (progress.ts), and settles any
     * conversation hold a dead batch attempt of the campaign left (the run's end and its
     * later recounts). Safe to repeat.
     */
    async recountCampaign(input: { campaignId: string; tenantId: string; recipients: number; chunks: 'all' | 'movable'; at: string }): Promise<void> {
      const heartbeat = setInterval(() => Context.current().heartbeat(), 5_000);
      try {
        await settleOrphanedHolds(deps.db, input.tenantId, input.campaignId, now());
        await recount(deps.db, { ...input, at: new Date(input.at) });
      } finally {
        clearInterval(heartbeat);
      }
    },

    /** Hands the finished campaign's late recounts to the workers' pass (src/campaigns/lateRecounts.ts). Safe to repeat. */
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
