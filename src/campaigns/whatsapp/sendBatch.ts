import type { Db } from 'mongodb';
import { findCampaign } from '../campaign';
import type { SendBatchInput, SendBatchResult } from '../contracts';
import { chunkOf, recount } from '../progress';
import { moveQueuedRecipients, type QueuedMove, type RecipientReason } from '../recipients';
import { readRecipientBatch, type CampaignRecipientDoc } from '../staging';
import { catchUpSendAt } from './throttle';
import { collections } from '../../db/collections';
import { findByIds } from '../../db/findByIds';
import { isWindowOpen, nextOpenTime } from '../../domain/sendWindow';
import type { EventPublisher } from '../../events';
import { groupAcceptedSendRecords, type AcceptedSendRecords, settleConversationHold, type HeldConversations, campaignSendIntentKey, sendIntentsCollection, type SendIntentDoc, SendOutcomeUnknown, SendRefusal, lookUpSendChecks, sendWhatsAppMessage, type SendChecked, type SendRefusalReason, type SendStanding, suppressedAmong } from '../../messaging';
import { takeBatchHold } from './conversationHold';
import type { WhatsAppProvider } from '../../messaging';
import { FailureType, permanentFailure } from '../../temporal/failures';

export interface SendBatchDeps {
  db: Db;
  events: EventPublisher;
  whatsapp: WhatsAppProvider;
  deploymentChannels: readonly string[];
  now: () => Date;
  /** How often a batch looks whether its campaign was paused or cancelled (CAMPAIGN_CONTROL_CHECK_MS). */
  controlCheckMs: number;
}

/** What the batch's runner (the activity) gives it: its waits and its progress reports. */
export interface BatchRunner {
  /** Waits between sends; the activity's is cut short by a cancellation (activities/campaigns.ts). */
  pace(ms: number): Promise<void>;
  /** The position the batch has reached, after each recipient. */
  heartbeat(next: number): void;
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

type Campaign = { _id: string; tenant_id: string; sender_id: string | null; template: { name: string; language: string | null } };

/**
 * Whether the campaign was paused or cancelled since the batch began. The API writes the
 * status only after the run has taken the update, so a batch that stops here finds the run
 * paused (or cancelled) when it returns, never a run that starts the next batch at once.
 */
async function stoppedByControl(db: Db, campaignId: string, tenantId: string): Promise<boolean> {
  const current = await findCampaign(db, tenantId, campaignId);
  return current?.status === 'paused' || current?.status === 'cancelled';
}

/**
 * The workspace and which of the batch's numbers opted out, read together (two reads) when
 * the batch starts and again with each control check, so a suspension or a STOP stops the
 * batch's sends within CAMPAIGN_CONTROL_CHECK_MS at two reads a second, not two a send.
 */
async function readStanding(db: Db, tenantId: string, numbers: ReadonlySet<string>, workspace?: SendStanding['workspace']): Promise<SendStanding> {
  const [found, suppressed] = await Promise.all([
    workspace !== undefined ? workspace : collections(db).workspaces.findOne({ _id: tenantId }),
    numbers.size > 0 ? suppressedAmong(db, tenantId, [...numbers]) : new Set<string>(),
  ]);
  return { workspace: found, suppressed, asked: numbers };
}

/**
 * One recipient through the send use case; answers the recipient's move (written with the
 * batch's others), or a reason to hold. A `SendInProgress` (a dead attempt's lease not yet
 * run out) is thrown on: the batch is retried later.
 */
async function sendOne(
  deps: SendBatchDeps,
  campaign: Campaign,
  doc: CampaignRecipientDoc,
  plannedAt: number,
  checked: SendChecked,
  earlier: SendIntentDoc | null,
  records: AcceptedSendRecords,
): Promise<QueuedMove | { hold: string }> {
  // Never before its planned time (the time-skipping server's clock runs ahead of this one).
  const at = new Date(Math.max(plannedAt, deps.now().getTime()));
  try {
    const sent = await sendWhatsAppMessage(
      { db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now: deps.now },
      {
        tenantId: campaign.tenant_id,
        to: doc.to,
        template: { name: campaign.template.name, language: campaign.template.language, variables: doc.variables },
        senderId: campaign.sender_id,
        metadata: {},
        intentKey: campaignSendIntentKey(campaign.tenant_id, campaign._id, doc._id),
        origin: { kind: 'campaign', id: campaign._id, recipientKey: doc._id },
        checked,
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
    throw err;
  }
}

/**
 * A WhatsApp campaign's batch: sends up to `max` recipients from `from`, the n-th no earlier
 * than `plannedStartMs + n × spacing`, inside the campaign's window; reports the position
 * after each. Safe to retry: a recipient no longer `queued` was done by an earlier attempt,
 * and the send use case finds an earlier attempt's intent by campaign and recipient instead
 * of sending again. Every time comes from the workflow, so a retry plans the same sends.
 */
export async function sendCampaignBatch(deps: SendBatchDeps, input: SendBatchInput, runner: BatchRunner): Promise<SendBatchResult> {
  const { db, now } = deps;
  const campaign = await findCampaign(db, input.tenantId, input.campaignId);
  if (!campaign || !campaign.template) throw permanentFailure(FailureType.ReadModelMissing, `campaign ${input.campaignId} has no record or no template`);
  const workspace = await collections(db).workspaces.findOne({ _id: input.tenantId });
  if (!workspace || workspace.suspended) return { kind: 'held', next: input.from, reason: 'workspace_suspended' };
  const window = { startHour: campaign.schedule.send_window_start_hour, endHour: campaign.schedule.send_window_end_hour };
  const zone = campaign.schedule.timezone;
  const start = new Date(input.plannedStartMs);
  if (!isWindowOpen(start, window, zone)) return { kind: 'closed', next: input.from, opensAtMs: nextOpenTime(start, window, zone).getTime() };

  const spacing = 60_000 / input.throttlePerMinute;
  const count = Math.min(input.max, input.recipients - input.from);
  const docs = await readRecipientBatch(db, input.campaignId, input.from, count);
  const template = { name: campaign.template.name, language: campaign.template.language };
  const tally = { sent: 0, failed: 0, skipped: 0 };
  // Once per batch, not per send: the sender and template lookups scan their collections on FerretDB.
  const queued = docs.filter((d) => d.state === 'queued');
  const looked = queued.length > 0 ? await lookUpSendChecks(db, campaign.tenant_id, campaign.sender_id, template) : null;
  // The batch's conversations in one plan write instead of one lease a send; settled below.
  const hold: HeldConversations | null =
    queued.length > 0 ? await takeBatchHold(db, { tenantId: input.tenantId, campaignId: input.campaignId, from: input.from, positions: count, wanted: queued.length, now }) : null;
  const numbers = new Set(queued.map((d) => `+${d.to.replace(/^\+/, '')}`));
  if (queued.length > 0) await deps.whatsapp.prepare?.(input.tenantId, [...numbers]);
  let checked: SendChecked | null = looked && { ...looked, hold, standing: await readStanding(db, input.tenantId, numbers, workspace) };
  const settle = () => (hold ? settleConversationHold(db, input.tenantId, hold) : Promise.resolve());
  // An earlier attempt's intents, read once for the batch instead of once per send.
  const intentKey = (doc: CampaignRecipientDoc) => campaignSendIntentKey(campaign.tenant_id, campaign._id, doc._id);
  const earlier = new Map((await findByIds(sendIntentsCollection(db), queued.map(intentKey))).map((intent) => [intent._id, intent]));
  // The accepted sends' records, written in groups; flushed before the recipients move out of `queued`.
  const records = groupAcceptedSendRecords({ db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now });
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
        if (wait > 0) await runner.pace(wait);
        if (done > 0 && Date.now() - checkedAt >= deps.controlCheckMs) {
          checkedAt = Date.now();
          const [paused, standing] = await Promise.all([stoppedByControl(db, input.campaignId, input.tenantId), readStanding(db, input.tenantId, numbers)]);
          if (paused) {
            stopped = true;
            break;
          }
          checked = { ...checked!, standing };
        }
        const outcome = await sendOne(deps, { ...campaign, template }, doc, plannedAt, checked!, earlier.get(intentKey(doc)) ?? null, records);
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
      runner.heartbeat(next);
    }
  } catch (err) {
    // What was decided before the failure is kept when the database allows; the retry redoes the rest.
    // A recipient whose records failed stays queued with them, so the retry finishes them (resume).
    await records
      .flush()
      .then(() => moveQueuedRecipients(db, moves))
      .catch(() => undefined);
    // Settled when the database answers; if not, the hold is orphaned and a later batch or recount settles it from the intents.
    await settle().catch(() => undefined);
    throw err;
  }
  await records.flush();
  await moveQueuedRecipients(db, moves);
  await settle();
  // A position with no staged document (none is expected) is passed, never waited on.
  if (!stopped) next = input.from + count;
  // The chunks of this batch and of the batch before it, whose statuses are still arriving, are counted now.
  const firstChunk = chunkOf(Math.max(0, input.from - input.max));
  const lastChunk = chunkOf(Math.max(input.from, next - 1));
  await recount(db, {
    campaignId: input.campaignId,
    tenantId: input.tenantId,
    recipients: input.recipients,
    chunks: Array.from({ length: lastChunk - firstChunk + 1 }, (_, i) => firstChunk + i),
    at: now(),
  });
  if (held) return { kind: 'held', next, reason: held };
  return { kind: 'sent', next, nextSendAtMs: input.plannedStartMs + Math.round(done * spacing), ...tally };
}
