import type { Db } from 'mongodb';
import { callPersonName } from '../../src/calls/callPerson';
import type { CallDoc } from '../../src/calls/callStore';
import { findContactsByPhones } from '../../src/contacts/contacts';
import { findByIds } from '../../src/db/findByIds';
import { conversationIdFor, conversationsCollection, phoneDigits } from '../../src/conversations/store';

/**
 * Who a call was with, by name, so the console leads with the person rather than `call_…`
 * (issue 35 §7). A call stores no name of its own, so the name is, first found: what the call
 * itself carries (a campaign call's `metadata.person_name`, the recipient's name; a `details`
 * line labelled as a name, which the agent confirms on the line), else the workspace's contact
 * with that number, else the name the person gave on WhatsApp (their conversation, whose id
 * derives from the number). Every read is by `_id` (the one filter FerretDB answers from an
 * index), and a page's numbers are read together: at most three `$in` reads (identities,
 * contacts, conversations) whatever the page's size, none for a page whose calls name their
 * people (a read per number made a page of 25 calls 50 commands: issue 36, docs/scale.md).
 */
export async function callPersonNames(db: Db, tenantId: string, country: string, calls: Pick<CallDoc, '_id' | 'to' | 'metadata' | 'detail_lines'>[]): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  const unnamed = new Set<string>();
  for (const call of calls) {
    const own = callPersonName(call);
    if (own) names.set(call._id, own);
    else unnamed.add(call.to);
  }
  const byNumber = await namesOfNumbers(db, tenantId, country, [...unnamed]);
  for (const call of calls) if (!names.has(call._id)) names.set(call._id, byNumber.get(call.to) ?? null);
  return names;
}

async function namesOfNumbers(db: Db, tenantId: string, country: string, phones: string[]): Promise<Map<string, string | null>> {
  const contacts = await findContactsByPhones(db, tenantId, phones, country);
  const names = new Map<string, string | null>();
  const chatOf = (phone: string) => conversationIdFor(tenantId, 'whatsapp', phoneDigits(phone));
  const rest = phones.filter((phone) => {
    const name = contacts.get(phone)?.name;
    if (name) names.set(phone, name);
    return !name;
  });
  const chats = new Map(
    (await findByIds(conversationsCollection(db), rest.map(chatOf), { projection: { tenant_id: 1, customer: 1 } })).filter((c) => c.tenant_id === tenantId).map((c) => [c._id, c]),
  );
  for (const phone of rest) {
    const customer = chats.get(chatOf(phone))?.customer;
    names.set(phone, customer?.name ?? customer?.display_name ?? null);
  }
  return names;
}
