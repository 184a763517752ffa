import type { Db } from 'mongodb';
import { BULK_WRITE_MAX, bulkWriteInChunks } from '../db/bulkWrite';
import { CAMPAIGN_SKIP_CHUNK } from './contracts';
import type { StatusReached } from '../messaging';
import { recipientId, stagingCollections, type CampaignRecipientDoc, type RecipientState } from './staging';

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

/** The states a recipient may move to `to` from: those behind it. */
const statesBehind = (to: RecipientState): RecipientState[] =>
  (Object.keys(RECIPIENT_RANK) as RecipientState[]).filter((state) => RECIPIENT_RANK[state] < RECIPIENT_RANK[to]);

/**
 * Moves a recipient forward (never back); answers whether it moved. Safe to repeat. One
 * write by `_id` whose filter names the states behind `to`, so a status costs no read (the
 * filter is evaluated by FerretDB apart from the write, as a read and a write were before):
 * the only writers are the run (once per recipient, before its message exists) and the
 * message's statuses (after), so they do not race in practice.
 */
export async function advanceRecipient(
  db: Db,
  id: string,
  to: RecipientState,
  fields: { at: Date; reason?: RecipientReason | null; messageId?: string | null },
): Promise<boolean> {
  const { filter, update } = advanceOp({ id, to, ...fields });
  const { matchedCount } = await stagingCollections(db).recipients.updateOne(filter, update);
  return matchedCount === 1;
}

/** A recipient's forward move, as `advanceRecipient` takes it. */
export interface RecipientAdvance {
  id: string;
  to: RecipientState;
  at: Date;
  reason?: RecipientReason | null;
  messageId?: string | null;
}

/**
 * `advanceRecipient` for many recipients in unordered bulk writes (`bulkWriteInChunks`), each
 * the same forward-only write by `_id` with the states behind its target in the filter. Safe
 * to repeat.
 */
export async function advanceRecipients(db: Db, moves: readonly RecipientAdvance[]): Promise<void> {
  await bulkWriteInChunks(
    stagingCollections(db).recipients,
    moves.map((move) => ({ updateOne: advanceOp(move) })),
    { ordered: false },
  );
}

/**
 * A campaign's recipient follows its message's furthest status (forward only, so a repeat
 * changes nothing), with the message id for a status that arrives before the run recorded
 * its send. Messaging's status hook (src/messaging/deliveryStatus.ts), registered by the
 * composition roots (src/main/featureHooks.ts).
 */
export async function recipientsFollowMessages(db: Db, reached: readonly StatusReached[]): Promise<void> {
  const moves: RecipientAdvance[] = [];
  for (const { message, report } of reached) {
    if (message.campaign_recipient_id) moves.push({ id: message.campaign_recipient_id, to: report.status, at: report.at, messageId: message._id });
  }
  await advanceRecipients(db, moves);
}

/**
 * Recipients failed `outcome_unknown` whose send a provider's status later found gone out
 * (src/messaging/unknownOutcomes.ts): each takes its message and the message's status, the one
 * move out of a final state. The filter names the unknown outcome with no message, so a repeat
 * (or a recipient already resolved) changes nothing. Unordered bulk writes, by `_id`.
 */
export async function resolveUnknownOutcomes(db: Db, moves: readonly (RecipientAdvance & { messageId: string })[]): Promise<void> {
  await bulkWriteInChunks(
    stagingCollections(db).recipients,
    moves.map((move) => ({
      updateOne: {
        filter: { _id: move.id, state: 'failed' as const, skip_reason: 'outcome_unknown', message_id: null },
        update: { $set: { state: move.to, state_at: move.at, skip_reason: null, message_id: move.messageId } },
      },
    })),
    { ordered: false },
  );
}

function advanceOp(move: RecipientAdvance) {
  const set: Partial<CampaignRecipientDoc> = { state: move.to, state_at: move.at };
  if (move.reason !== undefined) set.skip_reason = move.reason;
  if (move.messageId) set.message_id = move.messageId;
  return { filter: { _id: move.id, state: { $in: statesBehind(move.to) } }, update: { $set: set } };
}

/** A queued recipient's first move, as the run decided it (sent, failed or skipped). */
export interface QueuedMove {
  id: string;
  to: 'sent' | 'failed' | 'skipped';
  at: Date;
  reason?: RecipientReason | null;
  messageId?: string | null;
}

/**
 * Moves recipients out of `queued`, many in unordered bulk writes (`bulkWriteInChunks`): the
 * run knows they were queued when it read its batch, so nothing is read again. The filter on `queued` leaves a recipient
 * that a message status has already moved on (it carries its `message_id` from that status,
 * so the two may land in either order). FerretDB evaluates the filter and the write apart, as
 * it does `advanceRecipient`'s: only a status written in the same instant as the
 * batch's write could be overwritten, as before. Safe to repeat.
 */
export async function moveQueuedRecipients(db: Db, moves: readonly QueuedMove[]): Promise<void> {
  await bulkWriteInChunks(
    stagingCollections(db).recipients,
    moves.map((move) => {
      const set: Partial<CampaignRecipientDoc> = { state: move.to, state_at: move.at };
      if (move.reason !== undefined) set.skip_reason = move.reason;
      if (move.messageId) set.message_id = move.messageId;
      return { updateOne: { filter: { _id: move.id, state: 'queued' as const }, update: { $set: set } } };
    }),
    { ordered: false },
  );
}

/**
 * Skips a cancelled campaign's queued recipients from `from` (at most CAMPAIGN_SKIP_CHUNK), one
 * bulk write of `BULK_WRITE_MAX` at a time, reporting the position reached after each; an
 * attempt that `resumeAt` a reported position goes on from there. Answers where it stopped.
 * Safe to repeat.
 */
export async function skipOutstanding(
  db: Db,
  input: { campaignId: string; from: number; recipients: number; at: Date },
  progress: { resumeAt: unknown; report(reached: number): void },
): Promise<number> {
  const until = Math.min(input.recipients, input.from + CAMPAIGN_SKIP_CHUNK);
  const start = typeof progress.resumeAt === 'number' ? Math.min(until, Math.max(input.from, progress.resumeAt)) : input.from;
  for (let n = start; n < until; n += BULK_WRITE_MAX) {
    const end = Math.min(until, n + BULK_WRITE_MAX);
    const ids = Array.from({ length: end - n }, (_, i) => recipientId(input.campaignId, n + i));
    await moveQueuedRecipients(db, ids.map((id) => ({ id, to: 'skipped' as const, at: input.at, reason: 'cancelled' as const })));
    progress.report(end);
  }
  return until;
}
