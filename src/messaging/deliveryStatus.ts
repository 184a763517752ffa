import type { Db } from 'mongodb';
import { advanceRecipient } from '../campaigns/recipients';
import type { EventPublisher } from '../events/publisher';
import { STATUS_RANK, outboundMessagesCollection, type DeliveryStatus } from './outboundMessages';

export interface DeliveryStatusInput {
  /** Null when only the provider's message id is known (a Cloud API webhook): looked up. */
  tenantId: string | null;
  messageId: string;
  status: DeliveryStatus;
  at: Date;
  /** Why a `failed` message failed, as the provider said. */
  error?: { code: number | null; title: string | null; message: string | null } | null;
}

/**
 * A delivery status from the provider: recorded on the outbound message (moving forward
 * only) and emitted as `message.status`, keyed by the provider's message id, once per
 * message and status. Safe to repeat. Answers false for a message this service never sent.
 */
export async function applyDeliveryStatus(deps: { db: Db; events: EventPublisher }, input: DeliveryStatusInput): Promise<boolean> {
  const messages = outboundMessagesCollection(deps.db);
  const message = await messages.findOne({ _id: input.messageId });
  const tenantId = message?.tenant_id ?? input.tenantId;
  if (!tenantId || (message && input.tenantId && message.tenant_id !== input.tenantId)) return false;
  if (message && STATUS_RANK[input.status] > STATUS_RANK[message.status]) {
    await messages.updateOne({ _id: message._id }, { $set: { status: input.status, status_at: input.at } });
  }
  // A campaign's recipient follows its message (forward only, so a repeat changes nothing).
  // The message id comes along: the run records its batch's sends after the batch, so a
  // status may reach the recipient first.
  if (message?.campaign_recipient_id) await advanceRecipient(deps.db, message.campaign_recipient_id, input.status, { at: input.at, messageId: message._id });
  await deps.events.publish({
    tenantId,
    type: 'message.status',
    dedupeKey: `message.status:${input.messageId}:${input.status}`,
    createdAt: input.at,
    data: {
      message_id: input.messageId,
      status: input.status,
      channel: 'whatsapp',
      to: message?.to ?? null,
      conversation_id: message?.conversation_id ?? null,
      campaign_id: message?.campaign_id ?? null,
      status_at: input.at.toISOString(),
      error: input.error ?? null,
    },
  });
  return true;
}
