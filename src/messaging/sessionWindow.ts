import type { Collection, Db } from 'mongodb';
import { phoneDigits } from '../conversations';
import { upsertOne } from '../db/upsert';

/**
 * The 24-hour customer service window (api-core §4, `text`): free text may go to a customer
 * for 24 hours after their last message to that business number. Kept per workspace,
 * sender and customer, read by `_id`.
 */
export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

interface WindowDoc {
  _id: string;
  tenant_id: string;
  sender_id: string;
  customer: string;
  last_inbound_at: Date;
}

function windows(db: Db): Collection<WindowDoc> {
  return db.collection<WindowDoc>('whatsapp_windows');
}

const windowId = (tenantId: string, senderId: string, customer: string) => `${tenantId}|${senderId}|${phoneDigits(customer)}`;

/** Records a customer message; an older message arriving late never moves the window back. */
export async function openWindow(db: Db, input: { tenantId: string; senderId: string; customer: string; at: Date }): Promise<void> {
  const _id = windowId(input.tenantId, input.senderId, input.customer);
  const doc: WindowDoc = { _id, tenant_id: input.tenantId, sender_id: input.senderId, customer: `+${phoneDigits(input.customer)}`, last_inbound_at: input.at };
  await upsertOne(windows(db), { _id }, { $setOnInsert: { tenant_id: doc.tenant_id, sender_id: doc.sender_id, customer: doc.customer }, $max: { last_inbound_at: input.at } });
}

export async function windowOpen(db: Db, input: { tenantId: string; senderId: string; customer: string }, now: Date): Promise<boolean> {
  const until = await windowOpenUntil(db, input);
  return until !== null && now.getTime() < until.getTime();
}

/**
 * When the window closes as last recorded (null: the customer never wrote). It only moves
 * later (`openWindow` keeps the newest message), so free text may go at least until then.
 */
export async function windowOpenUntil(db: Db, input: { tenantId: string; senderId: string; customer: string }): Promise<Date | null> {
  const doc = await windows(db).findOne({ _id: windowId(input.tenantId, input.senderId, input.customer) });
  return doc === null ? null : new Date(doc.last_inbound_at.getTime() + SESSION_WINDOW_MS);
}
