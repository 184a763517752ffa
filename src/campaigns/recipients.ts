import type { Db } from 'mongodb';
import { stagingCollections, type CampaignRecipientDoc, type RecipientState } from './staging';

/**
 * A recipient's state follows its message (campaigns-tickets-dues §4 GET …/recipients):
 * `queued` until the run reaches it, then `sent`, `failed` or `skipped` (with its reason),
 * then, as the provider reports, `delivered` and `read` (or `failed`). It only moves
 * forward, so a late or repeated status never takes it back.
 */
export const RECIPIENT_RANK: Record<RecipientState, number> = { queued: 0, sent: 1, calling: 1, delivered: 2, read: 3, failed: 4, skipped: 4, called: 4 };

/** Why a recipient was skipped or failed without a provider's answer. */
export type RecipientReason =
  | 'suppressed'
  | 'cancelled'
  | 'provider_error'
  | 'outcome_unknown'
  /** Call campaigns: the POST /calls guard that refused this person's call, or the network's refusal. */
  | 'destination_too_short'
  | 'destination_unusable'
  | 'self_dial'
  | 'destination_blocked'
  | 'country_not_allowed'
  | 'originate_error';

/**
 * Moves a recipient forward (never back); answers whether it moved. Safe to repeat. Read and
 * then written by `_id`: the only writers are the run (once per recipient, before its
 * message exists) and the message's statuses (after), so they do not race in practice.
 */
export async function advanceRecipient(
  db: Db,
  id: string,
  to: RecipientState,
  fields: { at: Date; reason?: RecipientReason | null; messageId?: string | null },
): Promise<boolean> {
  const { recipients } = stagingCollections(db);
  const doc = await recipients.findOne({ _id: id });
  if (!doc || RECIPIENT_RANK[to] <= RECIPIENT_RANK[doc.state]) return false;
  const set: Partial<CampaignRecipientDoc> = { state: to, state_at: fields.at };
  if (fields.reason !== undefined) set.skip_reason = fields.reason;
  if (fields.messageId) set.message_id = fields.messageId;
  await recipients.updateOne({ _id: id }, { $set: set });
  return true;
}
