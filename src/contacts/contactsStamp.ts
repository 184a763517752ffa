import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';

/**
 * A token that changes at every write to a workspace's contacts, so a reader can tell
 * whether what it read earlier may still be used: a campaign's launch reuses the audience
 * its evaluate read moments before when the token is the same (src/campaigns/audienceCache.ts).
 *
 * Written after each contact write (src/contacts/contacts.ts), read before each audience
 * scan: a write that completed before a launch began moved the token, so that launch reads
 * the contacts afresh. Every write sets a new random token, so writes that race (FerretDB
 * applies updates without isolation, src/db/leaseLock.ts) still leave a token no reader saw.
 */
interface ContactsStampDoc {
  /** The workspace id. */
  _id: string;
  token: string;
  at: Date;
}

function stamps(db: Db): Collection<ContactsStampDoc> {
  return db.collection<ContactsStampDoc>('contact_stamps');
}

/** A workspace whose contacts were never written through the contacts module reads `none`. */
export async function readContactsStamp(db: Db, tenantId: string): Promise<string> {
  return (await stamps(db).findOne({ _id: tenantId }))?.token ?? 'none';
}

export async function touchContactsStamp(db: Db, tenantId: string, at: Date): Promise<void> {
  const set = { token: randomUUID(), at };
  const updated = await stamps(db).updateOne({ _id: tenantId }, { $set: set });
  if (updated.matchedCount > 0) return;
  // First write of this workspace; an insert that loses to a parallel first write updates instead.
  if (!(await insertIfAbsent(stamps(db), { _id: tenantId, ...set }))) await stamps(db).updateOne({ _id: tenantId }, { $set: set });
}
