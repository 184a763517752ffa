import type { Db } from 'mongodb';
import { collections, type SenderDoc } from '../db/collections';

/**
 * Which WhatsApp identities a workspace can send from. The default sender is the connected
 * one marked default; when that one is disconnected, the oldest connected sender stands in,
 * so a workspace with any connected sender can always send without naming one.
 */

export async function connectedSenders(db: Db, tenantId: string): Promise<SenderDoc[]> {
  return collections(db).senders.find({ tenant_id: tenantId, connected: true }).sort({ created_at: 1, _id: 1 }).toArray();
}

export function effectiveDefault(connected: SenderDoc[]): SenderDoc | null {
  return connected.find((s) => s.is_default) ?? connected[0] ?? null;
}

export type SenderResolution = { ok: true; sender: SenderDoc } | { ok: false; message: string };

/** The sender named by `sender_id`, or the default; a refusal names what was missing. */
export async function resolveSender(db: Db, tenantId: string, senderId: string | null | undefined): Promise<SenderResolution> {
  if (senderId) {
    const sender = await collections(db).senders.findOne({ _id: senderId });
    if (!sender || sender.tenant_id !== tenantId) return { ok: false, message: `Sender ${senderId} is not a sender of this workspace.` };
    if (!sender.connected) return { ok: false, message: `Sender ${senderId} is not connected.` };
    return { ok: true, sender };
  }
  const sender = effectiveDefault(await connectedSenders(db, tenantId));
  return sender ? { ok: true, sender } : { ok: false, message: 'No WhatsApp sender is connected to this workspace.' };
}

/** The connected senders whose business number is `phone` (digits compared), for inbound routing. */
export async function sendersByPhone(db: Db, phone: string): Promise<SenderDoc[]> {
  const digits = phone.replace(/\D/g, '');
  return collections(db).senders.find({ phone: `+${digits}`, connected: true }).sort({ created_at: 1, _id: 1 }).toArray();
}
