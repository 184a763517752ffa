import type { Db } from 'mongodb';
import { collections, type SenderDoc, type TemplateDoc } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { newId } from '../domain/ids';

/**
 * The console's set-up of a workspace's WhatsApp senders and message templates. One default
 * sender per workspace: the first sender, or one made default, clears the others.
 */

async function makeDefault(db: Db, tenantId: string, senderId: string): Promise<void> {
  await collections(db).senders.updateMany({ tenant_id: tenantId, _id: { $ne: senderId } }, { $set: { is_default: false } });
}

export async function createSender(db: Db, tenantId: string, input: { phone: string; display_name: string; is_default: boolean }, now: Date): Promise<SenderDoc> {
  const { senders } = collections(db);
  const isFirst = (await senders.countDocuments({ tenant_id: tenantId })) === 0;
  const doc: SenderDoc = {
    _id: newId('snd', now),
    tenant_id: tenantId,
    channel: 'whatsapp',
    phone: input.phone,
    display_name: input.display_name,
    is_default: input.is_default || isFirst,
    connected: true,
    created_at: now,
  };
  await senders.insertOne(doc);
  if (doc.is_default) await makeDefault(db, tenantId, doc._id);
  return doc;
}

/** Renames, makes default, (dis)connects a sender or deploys a chat agent to it (null: none); null when it is not the workspace's. */
export async function updateSender(
  db: Db,
  tenantId: string,
  senderId: string,
  change: { display_name?: string; is_default?: true; connected?: boolean; agent_id?: string | null },
): Promise<SenderDoc | null> {
  const updated = await collections(db).senders.findOneAndUpdate({ _id: senderId, tenant_id: tenantId }, { $set: change }, { returnDocument: 'after' });
  if (updated && change.is_default) await makeDefault(db, tenantId, senderId);
  return updated;
}

/** A new template; null when the workspace already has one of that name and language. */
export async function createTemplate(db: Db, tenantId: string, input: Omit<TemplateDoc, '_id' | 'tenant_id' | 'created_at'>, now: Date): Promise<TemplateDoc | null> {
  const doc: TemplateDoc = { _id: newId('tpl', now), tenant_id: tenantId, ...input, created_at: now };
  return (await insertIfAbsent(collections(db).templates, doc)) ? doc : null;
}

/** Sets a template's approval status; null when it is not the workspace's. */
export async function setTemplateStatus(db: Db, tenantId: string, templateId: string, change: Pick<TemplateDoc, 'status'>): Promise<TemplateDoc | null> {
  return collections(db).templates.findOneAndUpdate({ _id: templateId, tenant_id: tenantId }, { $set: change }, { returnDocument: 'after' });
}
