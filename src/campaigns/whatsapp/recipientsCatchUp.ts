import type { Db } from 'mongodb';
import { outboundStatuses } from '../../messaging';
import { CAMPAIGN_COUNT_CHUNK } from '../contracts';
import { progressCollection } from '../progress';
import { advanceRecipients, RECIPIENT_RANK, type RecipientAdvance } from '../recipients';
import { readRecipientBatch } from '../staging';

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
 */
export async function recipientsCatchUp(db: Db, input: { campaignId: string; recipients: number; at: Date }): Promise<number> {
  const stored = await progressCollection(db).findOne({ _id: input.campaignId }, { projection: { chunks: 1 } });
  const chunks = Object.entries(stored?.chunks ?? {})
    .filter(([, counts]) => counts.sent > 0 || counts.delivered > 0)
    .map(([k]) => Number(k));
  let moved = 0;
  for (const k of chunks) {
    const from = k * CAMPAIGN_COUNT_CHUNK;
    const behind = (await readRecipientBatch(db, input.campaignId, from, Math.min(CAMPAIGN_COUNT_CHUNK, input.recipients - from))).filter(
      (r) => (r.state === 'sent' || r.state === 'delivered') && r.message_id,
    );
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
