import type { Db } from 'mongodb';
import { callPersonName } from '../../src/calls/callPerson';
import type { CallDoc } from '../../src/calls/callStore';
import { findContactByPhone } from '../../src/contacts/contacts';
import { conversationIdFor, findConversation, phoneDigits } from '../../src/conversations/store';

/**
 * Who a call was with, by name, so the console leads with the person rather than `call_…`
 * (issue 35 §7). A call stores no name of its own, so the name is, first found: what the call
 * itself carries (a campaign call's `metadata.person_name`, the recipient's name; a `details`
 * line labelled as a name, which the agent confirms on the line), else the workspace's contact
 * with that number, else the name the person gave on WhatsApp (their conversation, whose id
 * derives from the number). Every read is by `_id` (the one filter FerretDB answers from an
 * index): at most three per distinct number on a page, none for a call that names its person.
 */
export async function callPersonNames(db: Db, tenantId: string, country: string, calls: Pick<CallDoc, '_id' | 'to' | 'metadata' | 'detail_lines'>[]): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  const unnamed = new Set<string>();
  for (const call of calls) {
    const own = callPersonName(call);
    if (own) names.set(call._id, own);
    else unnamed.add(call.to);
  }
  const byNumber = new Map(await Promise.all([...unnamed].map(async (phone) => [phone, await nameOfNumber(db, tenantId, country, phone)] as const)));
  for (const call of calls) if (!names.has(call._id)) names.set(call._id, byNumber.get(call.to) ?? null);
  return names;
}

async function nameOfNumber(db: Db, tenantId: string, country: string, phone: string): Promise<string | null> {
  const contact = await findContactByPhone(db, tenantId, phone, country);
  if (contact?.name) return contact.name;
  const chat = await findConversation(db, tenantId, conversationIdFor(tenantId, 'whatsapp', phoneDigits(phone)));
  return chat?.customer?.name ?? chat?.customer?.display_name ?? null;
}
