import type { CloudWebhookBatch } from './cloudWebhookBatch';
import { applyDeliveryStatus } from './deliveryStatus';
import { parkStatuses } from './earlyStatuses';
import { receiveEcho, receiveInbound, type InboundDeps } from './inbound';
import { sendersByPhone } from './senders';
import { finishRecording } from './sendMessage';
import { resolveFromStatus } from './unknownOutcomes';

/**
 * A Cloud API webhook delivery, applied: inbound messages and echoes go to the workspace
 * whose connected sender owns the business number written to (the oldest such sender when
 * several share it); statuses find their workspace through the message they are about, and
 * a status of a message not recorded yet is parked until it is (src/messaging/earlyStatuses.ts).
 * Whatever no workspace owns is counted and skipped, never an error (the provider would
 * retry it forever).
 */
export async function ingestCloudWebhook(
  deps: InboundDeps,
  batch: CloudWebhookBatch,
  /** Phone-number id → business number digits, from the deployment's configuration. */
  phoneByNumberId: Record<string, string>,
  now: Date = new Date(),
): Promise<{ applied: number; parked: number; skipped: number }> {
  let applied = 0;
  let parked = 0;
  let skipped = 0;
  /** The workspace sender that owns the business number an inbound message or echo names. */
  const owned = async (business: { phoneNumberId: string | null; displayPhoneNumber: string | null }) => {
    const phone = (business.phoneNumberId && phoneByNumberId[business.phoneNumberId]) || business.displayPhoneNumber;
    const sender = phone ? ((await sendersByPhone(deps.db, phone))[0] ?? null) : null;
    if (sender) applied += 1;
    else skipped += 1;
    return sender && { tenantId: sender.tenant_id, senderId: sender._id, senderPhone: sender.phone, sender };
  };
  for (const message of batch.inbound) {
    const sender = await owned(message);
    if (sender) {
      const { from, profileName, type, text, referral, at } = message;
      await receiveInbound(deps, { ...sender, providerMessageId: message.id, from, profileName, type, text, referral, at });
    }
  }
  // A send adopted here is recorded as the Cloud API's: no `accepted` to tell, parked statuses applied.
  const finish = (intent: Parameters<typeof finishRecording>[1]) => finishRecording({ db: deps.db, events: deps.events, provider: {} }, intent);
  for (const status of batch.statuses) {
    const report = { status: status.status, at: status.at, error: status.error };
    if (await applyDeliveryStatus(deps, { tenantId: null, messageId: status.id, ...report })) applied += 1;
    else if (await parkStatuses(deps, status.id, [report], now)) applied += 1;
    // Parked first, so a send adopted from it applies it with its records.
    else if (status.callbackData && (await resolveFromStatus({ db: deps.db, now: () => now }, { messageId: status.id, callbackData: status.callbackData, at: status.at }, finish))) applied += 1;
    else parked += 1;
  }
  for (const echo of batch.echoes) {
    const sender = await owned(echo);
    if (sender) {
      const { to, action, type, text, at } = echo;
      await receiveEcho(deps, { tenantId: sender.tenantId, senderId: sender.senderId, senderPhone: sender.senderPhone, providerMessageId: echo.id, to, action, type, text, at });
    }
  }
  return { applied, parked, skipped };
}
