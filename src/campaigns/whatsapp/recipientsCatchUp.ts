import type { Db } from 'mongodb';
import { findByIds } from '../../db/findByIds';
import { campaignSendIntentKey, outboundStatuses, sendIntentsCollection } from '../../messaging';
import { CAMPAIGN_COUNT_CHUNK } from '../contracts';
import { progressCollection } from '../progress';
import { advanceRecipients, RECIPIENT_RANK, resolveUnknownOutcomes, type RecipientAdvance } from '../recipients';
import { readRecipientBatch, type CampaignRecipientDoc } from '../staging';

/**
 * Recipients left behind their messages catch up before a late recount. FerretDB evaluates a
 * conditional update's filter apart from its write, so the run's `queued → sent` and a status
 * landing in the same instant can leave a recipient `sent` while its message reads `read`
 * (src/campaigns/recipients.ts says so): `npm run cluster:kill` saw 35 of 2,000 people so with the
 * simulator answering at once under load, and no later status would ever move them. So each
 * late recount first moves the recipients still `sent` or `delivered` in the chunks whose last
 * count had any (the rest cannot be behind) to their message's recorded status, forward only
 * (`advanceRecipients`): safe to repeat and to race a status. Off the send path: five passes
 * per campaign, reading by `_id` only. Answers how many it moved.
 *
 * Recipients failed `outcome_unknown` catch up too, in the chunks whose last count had any: a
 * provider's status may since have found their send gone out (src/messaging/unknownOutcomes.ts
 * writes the send intent `sent` with its message), so each takes its message and that
 * message's status (`resolveUnknownOutcomes`). Their intents are read by key, one `_id $in`.
 */
export async function recipientsCatchUp(db: Db, input: { campaignId: string; recipients: number; at: Date }): Promise<number> {
  const stored = await progressCollection(db).findOne({ _id: input.campaignId }, { projection: { chunks: 1 } });
  const chunks = Object.entries(stored?.chunks ?? {})
    .filter(([, counts]) => counts.sent > 0 || counts.delivered > 0 || (counts.outcome_unknown ?? 0) > 0)
    .map(([k]) => Number(k));
  let moved = 0;
  for (const k of chunks) {
    const from = k * CAMPAIGN_COUNT_CHUNK;
    const docs = await readRecipientBatch(db, input.campaignId, from, Math.min(CAMPAIGN_COUNT_CHUNK, input.recipients - from));
    moved += await resolveUnknown(db, input.campaignId, docs.filter((r) => r.state === 'failed' && r.skip_reason === 'outcome_unknown' && !r.message_id), input.at);
    const behind = docs.filter((r) => (r.state === 'sent' || r.state === 'delivered') && r.message_id);
    if (behind.length === 0) continue;
    const statuses = await outboundStatuses(db, behind.map((r) => r.message_id!));
    const moves: RecipientAdvance[] = [];
    for (const r of behind) {
      const status = statuses.get(r.message_id!);
      if (status && RECIPIENT_RANK[status] > RECIPIENT_RANK[r.state]) moves.push({ id: r._id, to: status, at: input.at });
    }
    if (moves.length) await advanceRecipients(db, moves);
    moved += moves.length;
  }
  return moved;
}

/** The unknown outcomes among `unknown` that their send intents now name a message for, moved to it. */
async function resolveUnknown(db: Db, campaignId: string, unknown: readonly CampaignRecipientDoc[], at: Date): Promise<number> {
  if (unknown.length === 0) return 0;
  const intents = await findByIds(sendIntentsCollection(db), unknown.map((r) => campaignSendIntentKey(r.tenant_id, campaignId, r._id)), { projection: { state: 1, message_id: 1 } });
  const sentAs = new Map(intents.filter((i) => i.state === 'sent' && i.message_id).map((i) => [i._id, i.message_id!]));
  const found = unknown.flatMap((r) => {
    const messageId = sentAs.get(campaignSendIntentKey(r.tenant_id, campaignId, r._id));
    return messageId ? [{ id: r._id, messageId }] : [];
  });
  if (found.length === 0) return 0;
  const statuses = await outboundStatuses(db, found.map((f) => f.messageId));
  // A message not recorded yet (its adoption died before the outbound record) waits for the next pass.
  const moves = found.flatMap((f) => {
    const status = statuses.get(f.messageId);
    return status ? [{ id: f.id, to: status, at, messageId: f.messageId }] : [];
  });
  if (moves.length > 0) await resolveUnknownOutcomes(db, moves);
  return moves.length;
}
