import type { Db } from 'mongodb';
import { advanceRecipient } from '../campaigns/recipients';
import type { EventPublisher } from '../events/publisher';
import { STATUS_RANK, outboundMessagesCollection, type DeliveryStatus } from './outboundMessages';

/** One status the provider reported for a message, with its time. */
export interface StatusReport {
  status: DeliveryStatus;
  at: Date;
  /** Why a `failed` message failed, as the provider said. */
  error?: { code: number | null; title: string | null; message: string | null } | null;
}

export interface DeliveryStatusInput extends StatusReport {
  /** Null when only the provider's message id is known (a Cloud API webhook): looked up. */
  tenantId: string | null;
  messageId: string;
}

export interface DeliveryStatusesInput {
  /** Null when only the provider's message id is known: looked up. */
  tenantId: string | null;
  messageId: string;
  /** In the order they happened. */
  statuses: readonly StatusReport[];
}

/**
 * A delivery status from the provider: recorded on the outbound message (moving forward
 * only) and emitted as `message.status`, keyed by the provider's message id, once per
 * message and status. Safe to repeat. Answers false for a message this service never sent.
 */
export async function applyDeliveryStatus(deps: { db: Db; events: EventPublisher }, input: DeliveryStatusInput): Promise<boolean> {
  const { tenantId, messageId, ...report } = input;
  return applyDeliveryStatuses(deps, { tenantId, messageId, statuses: [report] });
}

/**
 * The report that recording `reports` one after another, forward only, would leave last:
 * the furthest one beyond `from`, at its first time. Null when none moves past `from`.
 */
export function furthestReport(reports: readonly StatusReport[], from: number): StatusReport | null {
  let furthest: StatusReport | null = null;
  for (const report of reports) {
    if (STATUS_RANK[report.status] > (furthest ? STATUS_RANK[furthest.status] : from)) furthest = report;
  }
  return furthest;
}

/**
 * Several statuses of one message reported together (the simulator's steps due at the same
 * moment): the message and its campaign recipient are read once and written once, with the
 * furthest status, which is what recording them one at a time would leave; then one
 * `message.status` event per status, in order, each with its own time. The events come
 * after the writes, as for a single status: a process dying between them leaves the events
 * to a repeat, which rewrites nothing and stores each event once.
 */
export async function applyDeliveryStatuses(deps: { db: Db; events: EventPublisher }, input: DeliveryStatusesInput): Promise<boolean> {
  const messages = outboundMessagesCollection(deps.db);
  const message = await messages.findOne({ _id: input.messageId });
  const tenantId = message?.tenant_id ?? input.tenantId;
  if (!tenantId || (message && input.tenantId && message.tenant_id !== input.tenantId)) return false;
  const onMessage = message ? furthestReport(input.statuses, STATUS_RANK[message.status]) : null;
  if (message && onMessage) {
    await messages.updateOne({ _id: message._id }, { $set: { status: onMessage.status, status_at: onMessage.at } });
  }
  // A campaign's recipient follows its message (forward only, so a repeat changes nothing).
  // It is told the furthest reported status even when the message was already there: the
  // run records its batch's sends after the batch, so a status may reach the recipient
  // first, and the message id comes along for that case.
  const onRecipient = furthestReport(input.statuses, 0);
  if (message?.campaign_recipient_id && onRecipient) {
    await advanceRecipient(deps.db, message.campaign_recipient_id, onRecipient.status, { at: onRecipient.at, messageId: message._id });
  }
  for (const report of input.statuses) {
    await deps.events.publish({
      tenantId,
      type: 'message.status',
      dedupeKey: `message.status:${input.messageId}:${report.status}`,
      createdAt: report.at,
      data: {
        message_id: input.messageId,
        status: report.status,
        channel: 'whatsapp',
        to: message?.to ?? null,
        conversation_id: message?.conversation_id ?? null,
        campaign_id: message?.campaign_id ?? null,
        status_at: report.at.toISOString(),
        error: report.error ?? null,
      },
    });
  }
  return true;
}
