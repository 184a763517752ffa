import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { touchContactsStamp } from './contactsStamp';
import { markContactWrite, syncContactTagEntries } from './tagEntries';
import { Refusal } from '../domain/refusal';
import { normaliseTags } from '../domain/tags';
import { normaliseEmail, toE164 } from './contactIdentity';

/**
 * The workspace's contacts, shared by every feature (the contacts API, tickets,
 * conversations, campaigns, the dues app). A contact is matched by email, then phone; each
 * email and phone belongs to at most one contact, recorded as an identity document whose
 * `_id` is the identity itself, so claiming one is a single atomic insert (FerretDB has no
 * transactions and its conditional updates are not atomic). Contacts are never merged.
 */

export interface ContactDoc {
  /** `cnt_` + 24 hex derived from the identity it was created with (see `contactIdFor`). */
  _id: string;
  tenant_id: string;
  name: string | null;
  /** Trimmed and lower-cased. */
  email: string | null;
  /** E.164. */
  phone: string | null;
  /** The contact's id in the business's own systems. */
  external_id: string | null;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

export type IdentityKind = 'email' | 'phone';

/** `_id` `<tenant_id>|email:<email>` or `<tenant_id>|phone:<e164>`: who owns the identity. */
export interface ContactIdentityDoc {
  _id: string;
  tenant_id: string;
  contact_id: string;
  kind: IdentityKind;
  value: string;
  created_at: Date;
}

export function contactCollections(db: Db): { contacts: Collection<ContactDoc>; identities: Collection<ContactIdentityDoc> } {
  return {
    contacts: db.collection<ContactDoc>('contacts'),
    identities: db.collection<ContactIdentityDoc>('contact_identities'),
  };
}

/** The email and the phone belong to two different contacts; nothing was merged. */
export class IdentityConflictError extends Refusal<'identity_conflict'> {
  override readonly name = 'IdentityConflictError';
  constructor(readonly contactIds: string[]) {
    super('identity_conflict', 'Those details belong to two different contacts.');
  }
}

/** The phone number is not a valid number, read as international or in the workspace's country. */
export class UnusablePhoneError extends Error {
  constructor(readonly phone: string) {
    super(`the phone number ${JSON.stringify(phone)} is not usable`);
    this.name = 'UnusablePhoneError';
  }
}

/** Neither an email nor a phone number was given. */
export class MissingIdentityError extends Refusal<'missing_identity'> {
  override readonly name = 'MissingIdentityError';
  constructor() {
    super('missing_identity', 'Provide an email or a phone number.');
  }
}

export interface ContactInput {
  name?: string | null;
  email?: string | null;
  /** As given: E.164, or a number of the workspace's country. */
  phone?: string | null;
  external_id?: string | null;
  tags?: string[];
}

export interface ContactMatch {
  contact: ContactDoc;
  created: boolean;
  /** Which identity found an existing contact; null when this call created it. */
  matchedOn: IdentityKind | null;
}

export interface Identities {
  email: string | null;
  phone: string | null;
}

/** The email normalised and the phone in E.164; blank values count as absent. */
export function identitiesOf(input: { email?: string | null; phone?: string | null }, country: string): Identities {
  const email = input.email?.trim() ? normaliseEmail(input.email) : null;
  let phone: string | null = null;
  if (input.phone?.trim()) {
    phone = toE164(input.phone, country);
    if (!phone) throw new UnusablePhoneError(input.phone);
  }
  return { email, phone };
}

function identityId(tenantId: string, kind: IdentityKind, value: string): string {
  return `${tenantId}|${kind}:${value}`;
}

/**
 * Derived from the identity a contact is created with (its email, else its phone), so
 * concurrent creates with the same email compute the same id and the insert lets one in.
 */
export function contactIdFor(tenantId: string, kind: IdentityKind, value: string): string {
  return `cnt_${createHash('sha256').update(`${tenantId}\u0000${kind}:${value}`).digest('hex').slice(0, 24)}`;
}

/** The contact that owns an identity, by one point read. */
export async function contactIdByIdentity(db: Db, tenantId: string, kind: IdentityKind, value: string): Promise<string | null> {
  const owner = await contactCollections(db).identities.findOne({ _id: identityId(tenantId, kind, value) });
  return owner?.contact_id ?? null;
}

/** By `_id` alone (the one filter FerretDB answers from an index), the workspace compared here. */
export async function findContactById(db: Db, tenantId: string, contactId: string): Promise<ContactDoc | null> {
  const contact = await contactCollections(db).contacts.findOne({ _id: contactId });
  return contact?.tenant_id === tenantId ? contact : null;
}

export async function findContactByEmail(db: Db, tenantId: string, email: string): Promise<ContactDoc | null> {
  const id = await contactIdByIdentity(db, tenantId, 'email', normaliseEmail(email));
  return id ? findContactById(db, tenantId, id) : null;
}

/** `phone` as given (E.164 or a number of `country`); an unusable number finds nobody. */
export async function findContactByPhone(db: Db, tenantId: string, phone: string, country: string): Promise<ContactDoc | null> {
  const e164 = toE164(phone, country);
  const id = e164 ? await contactIdByIdentity(db, tenantId, 'phone', e164) : null;
  return id ? findContactById(db, tenantId, id) : null;
}

/**
 * The contacts holding these phones (each as given, as `findContactByPhone` reads it), keyed by
 * the phone as given: two `_id: {$in}` reads (the identities, then their contacts) however many
 * numbers, where a read per number would cost two commands each. A phone nobody holds, or
 * unusable, is absent.
 */
export async function findContactsByPhones(db: Db, tenantId: string, phones: readonly string[], country: string): Promise<Map<string, ContactDoc>> {
  const identityOf = new Map<string, string>();
  for (const phone of phones) {
    const e164 = toE164(phone, country);
    if (e164) identityOf.set(phone, identityId(tenantId, 'phone', e164));
  }
  const { identities, contacts } = contactCollections(db);
  const owners = new Map((await findByIds(identities, [...identityOf.values()])).map((identity) => [identity._id, identity.contact_id]));
  const held = new Map((await findByIds(contacts, [...owners.values()])).filter((c) => c.tenant_id === tenantId).map((c) => [c._id, c]));
  const found = new Map<string, ContactDoc>();
  for (const [phone, identity] of identityOf) {
    const contact = held.get(owners.get(identity) ?? '');
    if (contact) found.set(phone, contact);
  }
  return found;
}

/** Email first, then phone, without creating anything; unusable phones are skipped. */
export async function findContactIdFor(db: Db, tenantId: string, who: { email: string | null; phone: string | null }, country: string): Promise<string | null> {
  if (who.email) {
    const id = await contactIdByIdentity(db, tenantId, 'email', normaliseEmail(who.email));
    if (id) return id;
  }
  const e164 = who.phone ? toE164(who.phone, country) : null;
  return e164 ? contactIdByIdentity(db, tenantId, 'phone', e164) : null;
}

/** Claims the identity for the contact unless someone holds it; returns the holder. */
async function claimIdentity(db: Db, tenantId: string, kind: IdentityKind, value: string, contactId: string, now: Date): Promise<string> {
  const { identities } = contactCollections(db);
  const doc: ContactIdentityDoc = { _id: identityId(tenantId, kind, value), tenant_id: tenantId, contact_id: contactId, kind, value, created_at: now };
  if (await insertIfAbsent(identities, doc)) return contactId;
  const holder = await identities.findOne({ _id: doc._id });
  return holder?.contact_id ?? contactId;
}

type AttachOutcome = { kind: 'attached'; contact: ContactDoc } | { kind: 'conflict'; lost: IdentityKind[]; holders: string[] };

/**
 * Gives the contact the identities it may take and fills its blank fields: a value it
 * already has differently is left alone (never overwritten), and an identity another
 * contact holds is not taken (and dropped from this contact if it carried it unclaimed).
 */
async function attach(db: Db, contact: ContactDoc, ids: Identities, input: ContactInput, now: Date): Promise<AttachOutcome> {
  const set: Partial<ContactDoc> = {};
  const lost: IdentityKind[] = [];
  const holders: string[] = [];
  for (const kind of ['email', 'phone'] as const) {
    const value = ids[kind];
    if (!value) continue;
    const has = contact[kind];
    if (has !== null && has !== value) continue;
    const holder = await claimIdentity(db, contact.tenant_id, kind, value, contact._id, now);
    if (holder !== contact._id) {
      lost.push(kind);
      holders.push(holder);
      if (has === value) set[kind] = null;
      continue;
    }
    if (has === null) set[kind] = value;
  }
  if (contact.name === null && input.name?.trim()) set.name = input.name.trim();
  if (contact.external_id === null && input.external_id?.trim()) set.external_id = input.external_id.trim();
  const newTags = normaliseTags(input.tags ?? []).filter((tag) => !contact.tags.includes(tag));
  let updated = contact;
  if (Object.keys(set).length > 0 || newTags.length > 0) {
    const { contacts } = contactCollections(db);
    const mark = await markContactWrite(db, contact.tenant_id, contact._id, now);
    updated =
      (await contacts.findOneAndUpdate(
        { _id: contact._id },
        { $set: { ...set, updated_at: now }, ...(newTags.length ? { $addToSet: { tags: { $each: newTags } } } : {}) },
        { returnDocument: 'after' },
      )) ?? contact;
    await syncContactTagEntries(db, contact._id, mark);
    await touchContactsStamp(db, contact.tenant_id, now);
  }
  return lost.length ? { kind: 'conflict', lost, holders } : { kind: 'attached', contact: updated };
}

/**
 * Matches the workspace's contact by email, then phone, or creates one. A match fills the
 * contact's blank fields and adds new tags; it never overwrites a value. When the email and
 * the phone belong to two different contacts, throws `IdentityConflictError`. Also throws
 * `UnusablePhoneError` and `MissingIdentityError`. Safe to call concurrently: two calls with
 * the same email end on the same contact.
 */
export async function matchOrCreateContact(
  db: Db,
  workspace: { _id: string; country: string },
  input: ContactInput,
  now: Date,
): Promise<ContactMatch> {
  const tenantId = workspace._id;
  const ids = identitiesOf(input, workspace.country);
  if (!ids.email && !ids.phone) throw new MissingIdentityError();
  const { contacts } = contactCollections(db);
  // A retry happens only when a concurrent call took this call's first identity between
  // its read and its claim; the next round then matches that contact.
  for (let round = 0; round < 3; round++) {
    const [byEmail, byPhone] = await Promise.all([
      ids.email ? contactIdByIdentity(db, tenantId, 'email', ids.email) : null,
      ids.phone ? contactIdByIdentity(db, tenantId, 'phone', ids.phone) : null,
    ]);
    if (byEmail && byPhone && byEmail !== byPhone) throw new IdentityConflictError([byEmail, byPhone]);
    const ownerId = byEmail ?? byPhone;
    if (ownerId) {
      const contact = await findContactById(db, tenantId, ownerId);
      // Identities are claimed only after their contact is written, and contacts are never deleted.
      if (!contact) throw new Error(`contact ${ownerId} holds an identity but does not exist`);
      const outcome = await attach(db, contact, ids, input, now);
      if (outcome.kind === 'conflict') throw new IdentityConflictError([ownerId, ...outcome.holders]);
      return { contact: outcome.contact, created: false, matchedOn: byEmail ? 'email' : 'phone' };
    }

    const primary: IdentityKind = ids.email ? 'email' : 'phone';
    const fresh: ContactDoc = {
      _id: contactIdFor(tenantId, primary, ids[primary]!),
      tenant_id: tenantId,
      name: input.name?.trim() || null,
      email: ids.email,
      phone: ids.phone,
      external_id: input.external_id?.trim() || null,
      tags: normaliseTags(input.tags ?? []),
      created_at: now,
      updated_at: now,
    };
    // Segments read contacts through their tag entries (tagEntries.ts): marked before, synced after.
    const mark = await markContactWrite(db, tenantId, fresh._id, now);
    const created = await insertIfAbsent(contacts, fresh);
    await syncContactTagEntries(db, fresh._id, mark);
    if (created) await touchContactsStamp(db, tenantId, now);
    const contact = created ? fresh : await findContactById(db, tenantId, fresh._id);
    if (!contact) throw new Error(`contact ${fresh._id} vanished after a duplicate insert`);
    const outcome = await attach(db, contact, ids, input, now);
    if (outcome.kind === 'attached') return { contact: outcome.contact, created, matchedOn: created ? null : primary };
    if (!outcome.lost.includes(primary)) throw new IdentityConflictError([contact._id, ...outcome.holders]);
  }
  throw new Error('contact matching did not settle after three rounds');
}
