import type { CloudWebhookBatch } from '../providers/whatsapp/cloudWebhook';
import { applyDeliveryStatus } from './deliveryStatus';
import { receiveEcho, receiveInbound, type MessagingDeps } from './inbound';
import { sendersByPhone } from './senders';

/**
 * A Cloud API webhook delivery, applied: inbound messages and echoes go to the workspace
 * whose connected sender owns the business number written to (the oldest such sender when
 * several share it); statuses find their workspace through the message they are about.
 * Whatever no workspace owns is counted and skipped, never an error (the provider would
 * retry it forever).
 */
export async function ingestCloudWebhook(
  deps: MessagingDeps,
  batch: CloudWebhookBatch,
  /** Phone-number id → business number digits, from the deployment's configuration. */
  phoneByNumberId: Record<string, string>,
): Promise<{ applied: number; skipped: number }> {
  let applied = 0;
  let skipped = 0;
  const ownerOf = async (business: { phoneNumberId: string | null; displayPhoneNumber: string | null }) => {
    const phone = (business.phoneNumberId && phoneByNumberId[business.phoneNumberId]) || business.displayPhoneNumber;
    if (!phone) return null;
    return (await sendersByPhone(deps.db, phone))[0] ?? null;
  };
  for (const message of batch.inbound) {
    const sender = await ownerOf(message);
    if (!sender) {
      skipped += 1;
      continue;
    }
    await receiveInbound(deps, {
      tenantId: sender.tenant_id,
      senderId: sender._id,
      senderPhone: sender.phone,
      from: message.from,
      profileName: message.profileName,
      providerMessageId: message.id,
      type: message.type,
      text: message.text,
      referral: message.referral,
      at: message.at,
    });
    applied += 1;
  }
  for (const status of batch.statuses) {
    if (await applyDeliveryStatus(deps, { tenantId: null, messageId: status.id, status: status.status, at: status.at, error: status.error })) applied += 1;
    else skipped += 1;
  }
  for (const echo of batch.echoes) {
    const sender = await ownerOf(echo);
    if (!sender) {
      skipped += 1;
      continue;
    }
    await receiveEcho(deps, {
      tenantId: sender.tenant_id,
      senderId: sender._id,
      senderPhone: sender.phone,
      to: echo.to,
      providerMessageId: echo.id,
      action: echo.action,
      type: echo.type,
      text: echo.text,
      at: echo.at,
    });
    applied += 1;
  }
  return { applied, skipped };
}
