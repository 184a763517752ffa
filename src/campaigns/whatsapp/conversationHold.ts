import type { Db } from 'mongodb';
import { settleOrphanedHolds, takeConversationHold, type ConversationHoldDoc, type HeldConversations, campaignSendIntentKey } from '../../messaging';
import { recipientId } from '../staging';

/**
 * A WhatsApp campaign batch's hold on the plan's conversations: messaging's hold
 * (src/messaging/conversationHold.ts) over the batch's recipients. A hold names its batch by
 * campaign and positions; which send intents those positions are is the campaign's to say
 * (`<campaign_id>:<n>` recipients, each with its campaign send intent), so messaging names
 * no campaign recipient.
 */

/** The send intents of the hold's positions, counted to settle a hold whose batch attempt died. */
const batchIntentKeys =
  (tenantId: string) =>
  (hold: ConversationHoldDoc): string[] =>
    Array.from({ length: hold.positions }, (_, i) => campaignSendIntentKey(tenantId, hold.campaign_id, recipientId(hold.campaign_id, hold.from + i)));

/**
 * Takes up to `wanted` conversations for the batch at `from` (its `positions` recipients),
 * settling first any orphaned hold of the same campaign; null when nothing was taken.
 */
export function takeBatchHold(
  db: Db,
  input: { tenantId: string; campaignId: string; from: number; positions: number; wanted: number; now: () => Date },
): Promise<HeldConversations | null> {
  return takeConversationHold(db, { ...input, intentKeysOf: batchIntentKeys(input.tenantId) });
}

/** Settles the campaign's orphaned holds (a batch attempt that died), for the run's end and its later recounts. */
export function settleOrphanedBatchHolds(db: Db, tenantId: string, campaignId: string, now: Date): Promise<number> {
  return settleOrphanedHolds(db, tenantId, campaignId, now, batchIntentKeys(tenantId));
}
