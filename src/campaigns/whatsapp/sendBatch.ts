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
import {
  type AlreadyChecked,
  campaignSendIntentKey,
  claimWriteAhead,
  groupAcceptedSendRecords,
  type HeldConversations,
  lookUpSendContext,
  type SendMessageDeps,
  SendOutcomeUnknown,
  SendRefusal,
  type SendRefusalReason,
  type SendStanding,
  sendIntentsCollection,
  settleConversationHold,
  type SliceAnswer,
  type WriteAheadSlice,
  suppressedAmong,
  WRITE_AHEAD_SLICE_MAX,
  WRITE_AHEAD_SPAN_MS,
} from '../../messaging';
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

/** A recipient the batch reached: queued ones are sent (`slot`: their place in the slice), others passed. */
interface Reached {
  doc: CampaignRecipientDoc;
  plannedAt: number;
  slot: number | null;
}

/**
 * A send's answer as the recipient's move, or a reason to hold the run, or a failure to
 * throw (a `SendInProgress`: a dead attempt's lease not yet run out; the batch is retried later).
 */
function moveOf(doc: CampaignRecipientDoc, at: Date, answer: SliceAnswer): QueuedMove | { hold: string } | { fail: unknown } | null {
  if ('notSent' in answer) return null;
  if ('sent' in answer) return { id: doc._id, to: 'sent', at, messageId: answer.sent.message_id };
  const err = answer.failed;
  if (err instanceof SendRefusal) {
    if (HOLDING.has(err.reason)) return { hold: err.reason };
    const reason: RecipientReason = err.reason === 'suppressed' ? 'suppressed' : 'provider_error';
    return { id: doc._id, to: reason === 'suppressed' ? 'skipped' : 'failed', at, reason };
  }
  // An attempt died between recording the intent and the provider's answer: it may
  // have gone out, so it is never sent again (at most once).
  if (err instanceof SendOutcomeUnknown) return { id: doc._id, to: 'failed', at, reason: 'outcome_unknown' };
  return { fail: err };
}

/**
 * A slice's recipients from the first of `docs`: the queued ones planned (the k-th of the
 * slice at `plannedAt(k)`) within WRITE_AHEAD_SPAN_MS of the first, at most
 * WRITE_AHEAD_SLICE_MAX, with the others among them passed; `closed` when the window shut first.
 */
function nextSlice(docs: readonly CampaignRecipientDoc[], plannedAt: (k: number) => number, open: (at: number) => boolean): { reached: Reached[]; closed: boolean } {
  const reached: Reached[] = [];
  const firstAt = plannedAt(0);
  let slots = 0;
  for (const doc of docs) {
    const at = plannedAt(slots);
    if (doc.state !== 'queued') {
      reached.push({ doc, plannedAt: at, slot: null });
      continue;
    }
    if (slots === WRITE_AHEAD_SLICE_MAX || at - firstAt >= WRITE_AHEAD_SPAN_MS) break;
    if (!open(at)) return { reached, closed: true };
    reached.push({ doc, plannedAt: at, slot: slots });
    slots += 1;
  }
  return { reached, closed: false };
}

/**
 * Posts a claimed slice's sends all at once, in order, none waiting for another's answer: the
 * intents are durable, and an intent whose POST has not left when the worker dies is a person
 * no status webhook can ever settle (docs/decisions/messaging.md). `at` gets each send's time.
 * Answers the index in `reached` where the batch stops (a send answered at the claim that holds
 * the run or fails the batch), or its length.
 */
function postSlice(slice: WriteAheadSlice, reached: readonly Reached[], at: Map<number, Date>, sentAt: Date): number {
  for (const [n, r] of reached.entries()) {
    if (r.slot === null) continue;
    const early = slice.early[r.slot]!;
    if (early) {
      const move = moveOf(r.doc, sentAt, early);
      if (move && !('id' in move)) return n;
      at.set(r.slot, sentAt);
      continue;
    }
    at.set(r.slot, sentAt);
    void slice.post(r.slot);
  }
  return reached.length;
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
  const looked = queued.length > 0 ? await lookUpSendContext(db, campaign.tenant_id, campaign.sender_id, template) : null;
  // The batch's conversations in one plan write instead of one lease a send; settled below.
  const hold: HeldConversations | null =
    queued.length > 0 ? await takeBatchHold(db, { tenantId: input.tenantId, campaignId: input.campaignId, from: input.from, positions: count, wanted: queued.length, now }) : null;
  const numbers = new Set(queued.map((d) => `+${d.to.replace(/^\+/, '')}`));
  if (queued.length > 0) await deps.whatsapp.prepare?.(input.tenantId, [...numbers]);
  let checked: AlreadyChecked | null = looked && { ...looked, standing: await readStanding(db, input.tenantId, numbers, workspace) };
  const settle = () => (hold ? settleConversationHold(db, input.tenantId, hold) : Promise.resolve());
  // An earlier attempt's intents, read once for the batch instead of once per send.
  const intentKey = (doc: CampaignRecipientDoc) => campaignSendIntentKey(campaign.tenant_id, campaign._id, doc._id);
  const earlier = new Map((await findByIds(sendIntentsCollection(db), queued.map(intentKey))).map((intent) => [intent._id, intent]));
  // The accepted sends' records, written in groups; flushed before the recipients move out of `queued`.
  const sendDeps: SendMessageDeps = { db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now };
  const records = groupAcceptedSendRecords(sendDeps);
  const inputOf = (doc: CampaignRecipientDoc) => ({
    tenantId: campaign.tenant_id,
    to: doc.to,
    template: { ...template, variables: doc.variables },
    senderId: campaign.sender_id,
    metadata: {},
    intentKey: intentKey(doc),
    origin: { kind: 'campaign' as const, id: campaign._id, recipientKey: doc._id },
    checked: checked!,
    hold,
    earlierIntent: earlier.get(intentKey(doc)) ?? null,
    recordLater: records.defer,
  });
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
  let reachedDocs = 0;
  try {
    // Slice by slice (src/messaging/writeAheadSends.ts): a slice's intents in one write, its
    // POSTs all at once right after, its outcomes in one write after their answers.
    while (reachedDocs < docs.length && !stopped) {
      const plannedAt = (k: number) => input.plannedStartMs + Math.round((done + k) * spacing);
      const { reached, closed } = nextSlice(docs.slice(reachedDocs), plannedAt, (at) => isWindowOpen(new Date(at), window, zone));
      const sending = reached.filter((r) => r.slot !== null);
      // The slice goes at its last send's planned time, so no send leaves before its own (the
      // throttle's cap holds); waited out before the intents are written, not between them and the POSTs.
      const goesAt = sending.length > 0 ? sending[sending.length - 1]!.plannedAt : null;
      if (goesAt !== null) {
        const wait = catchUpSendAt(paced, goesAt - input.plannedStartMs) - Date.now();
        if (wait > 0) await runner.pace(wait);
      }
      if (done > 0 && Date.now() - checkedAt >= deps.controlCheckMs) {
        checkedAt = Date.now();
        const [paused, standing] = await Promise.all([stoppedByControl(db, input.campaignId, input.tenantId), readStanding(db, input.tenantId, numbers)]);
        if (paused) {
          stopped = true;
          break;
        }
        checked = { ...checked!, standing };
      }
      if (closed) stopped = true;
      const slice = sending.length > 0 ? await claimWriteAhead(sendDeps, sending.map((r) => inputOf(r.doc))) : null;
      // Never before its planned time (the time-skipping server's clock runs ahead of this one).
      const sentAt = new Date(Math.max(goesAt ?? 0, now().getTime()));
      const at = new Map<number, Date>();
      let upTo = reached.length;
      let failure: unknown = null;
      if (slice) {
        // The slice is settled whatever happens here.
        try {
          upTo = postSlice(slice, reached, at, sentAt);
        } catch (err) {
          failure = err;
        }
      }
      const answers = slice ? await slice.settle() : [];
      for (const r of reached.slice(0, failure ? reached.length : upTo + 1)) {
        const move = r.slot === null ? null : moveOf(r.doc, at.get(r.slot) ?? now(), answers[r.slot]!);
        if (move && 'hold' in move) {
          held = move.hold;
          stopped = true;
          break;
        }
        if (move && 'fail' in move) {
          failure ??= move.fail;
          continue;
        }
        if (move) {
          moves.push(move);
          tally[move.to] += 1;
          done += 1;
        } else if (r.slot !== null) {
          // Never posted (a failure stopped the slice): stays queued for the retry.
          continue;
        }
        if (!failure) {
          next = r.doc.position + 1;
          runner.heartbeat(next);
        }
      }
      if (failure) throw failure;
      reachedDocs += reached.length;
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
