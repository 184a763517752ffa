import { randomUUID } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import { BULK_WRITE_MAX } from '../db/bulkWrite';
import { findByIds } from '../db/findByIds';
import { insertManyUnordered } from '../db/insertIfAbsent';
import { bulkUpsertInChunks } from '../db/upsert';
import { backfillEntries, entriesComplete, entryKey, entryKeyIn, entryParts, entryRange, entryRecordId } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { onlyDuplicateKeys } from '../db/duplicateKey';

/**
 * A workspace's contacts by tag, as keyed entries that carry what a campaign audience needs:
 * `<tenant>|tag:<tag>|<contact id>` holding the contact's name, email, phone and tags as one
 * JSON text. A segment (`tags: {$all}`) is then one `_id` range read of its first tag's
 * entries, which FerretDB answers from the `_id` index (the patched build), where the filter on
 * the contacts reads every contact of the workspace (issue 36: 1,000,000 in a year's workspace,
 * about 37 µs of FerretDB CPU each). One text rather than fields: FerretDB decodes a document
 * value by value, and a string is one value.
 *
 * Kept in step by the contact writers (contacts.ts): contacts are never deleted and their tags
 * only grow, so an entry is only ever added or rewritten, never removed. Each write:
 * 1. inserts a write mark `<tenant>|<contact id>|<uuid>`;
 * 2. writes the contact;
 * 3. rewrites the contact's entries from a read of it, reads it again, and repeats until two
 *    reads agree (FerretDB applies updates without isolation, so a writer that read before a
 *    parallel write could otherwise leave the older copy last);
 * 4. deletes its mark.
 * A reader takes every marked contact from the contacts themselves, so a process that died
 * between 1 and 4 leaves its contact read correctly (by one `_id` read each), never stale.
 */

export interface ContactTagEntryDoc {
  /** `<tenant>|tag:<tag, URI-encoded>|<contact id>`. */
  _id: string;
  /** JSON `[name, email, phone, tags]`. */
  c: string;
}

interface ContactWriteMarkDoc {
  /** `<tenant>|<contact id>|<uuid>`: one per write in progress. */
  _id: string;
  at: Date;
}

/** The backfill's name (src/db/keyedEntries.ts `entriesComplete`). */
export const CONTACT_TAG_ENTRIES = 'contact_tag_entries';

export const contactTagEntriesCollection = (db: Db): Collection<ContactTagEntryDoc> => db.collection<ContactTagEntryDoc>('contact_tag_entries');
const writeMarks = (db: Db): Collection<ContactWriteMarkDoc> => db.collection<ContactWriteMarkDoc>('contact_write_marks');

/** What an entry carries and a segment read answers. */
export interface SegmentContact {
  contact_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
}

/** The contact's fields entries copy (contacts.ts `ContactDoc`, which imports this module). */
interface EntrySource {
  _id: string;
  tenant_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  tags: string[];
}
const contacts = (db: Db): Collection<EntrySource> => db.collection<EntrySource>('contacts');
const SOURCE_PROJECTION = { _id: 1, tenant_id: 1, name: 1, email: 1, phone: 1, tags: 1 } as const;

/**
 * A tag as stored: BSON strings are UTF-8, so a lone surrogate is stored (and matched by
 * `$all`) as U+FFFD; the same here, which also keeps `encodeURIComponent` from throwing.
 */
const storedTag = (tag: string): string => Buffer.from(tag, 'utf8').toString('utf8');

/** A tag may hold any character; URI-encoded it holds none a key reserves. */
const tagList = (tenantId: string, tag: string): string => entryKey(tenantId, `tag:${encodeURIComponent(storedTag(tag))}`);

/** The contact's entries, one per tag (none for an untagged contact). */
export function contactTagEntries(contact: EntrySource): ContactTagEntryDoc[] {
  const c = JSON.stringify([contact.name, contact.email, contact.phone, contact.tags]);
  return contact.tags.map((tag) => ({ _id: entryKeyIn(tagList(contact.tenant_id, tag), contact._id), c }));
}

/** Step 1 of a contact write (above); answers the mark to hand to `syncContactTagEntries`. */
export async function markContactWrite(db: Db, tenantId: string, contactId: string, at: Date): Promise<string> {
  const _id = entryKey(tenantId, contactId, randomUUID());
  await writeMarks(db).insertOne({ _id, at });
  return _id;
}

/** Reads of the contact that must agree before its entries count as in step. */
const SYNC_ROUNDS = 6;

/** Longer than any write of a contact takes: a mark this old belongs to a writer that is gone. */
const MARK_ABANDONED_MS = 10 * 60_000;

/**
 * Drops this write's mark and the contact's abandoned ones (their writer died, or never saw two
 * reads agree): the entries were just found in step with the contact. A younger mark may be a
 * write still on its way, so it stays.
 */
async function dropMarks(db: Db, mark: string): Promise<void> {
  const [tenantId, contactId] = entryParts(mark) as [string, string];
  const before = new Date(Date.now() - MARK_ABANDONED_MS);
  const abandoned = await writeMarks(db).find({ _id: entryRange(entryKey(tenantId, contactId)) }).toArray();
  const ids = [mark, ...abandoned.filter((m) => m.at < before).map((m) => m._id)];
  await writeMarks(db).deleteMany({ _id: { $in: ids } });
}

/** Steps 3 and 4 of a contact write (above). Idempotent; a mark is left only when the reads never agreed. */
export async function syncContactTagEntries(db: Db, contactId: string, mark: string): Promise<void> {
  let written: string | null = null;
  for (let round = 0; round < SYNC_ROUNDS; round++) {
    const contact = await contacts(db).findOne({ _id: contactId }, { projection: SOURCE_PROJECTION });
    const entries = contact ? contactTagEntries(contact) : [];
    const text = JSON.stringify(entries);
    if (text === written) {
      await dropMarks(db, mark);
      return;
    }
    await bulkUpsertInChunks(
      contactTagEntriesCollection(db),
      entries.map((e) => ({ updateOne: { filter: { _id: e._id }, update: { $set: { c: e.c } }, upsert: true } })),
    );
    written = text;
  }
}

/**
 * Entries per round trip of a segment read. Each is about 150 bytes and 13 µs of FerretDB CPU
 * (campaignAudienceProbe), so 5,000 is about 65 ms of FerretDB's work, well inside the API's
 * 2 s database budget on a loaded machine, where round trips, not CPU, set the wall time of
 * 200,000 (40 round trips instead of 200 at 1,000).
 */
const ENTRY_BATCH = 5_000;

/**
 * A list's range cut where contact ids (`cnt_` + hex of a hash) split it about evenly, read in
 * parallel: FerretDB works on one part while this process decodes another, where one cursor
 * makes the two take turns (on a loaded machine each turn waits for a core). Ids of another
 * shape fall in some part all the same: the parts cover the whole range.
 */
const RANGE_CUTS = ['cnt_4', 'cnt_8', 'cnt_c'];
function rangeParts(list: string): Filter<ContactTagEntryDoc>['_id'][] {
  const range = entryRange(list);
  const cuts = RANGE_CUTS.map((cut) => entryKeyIn(list, cut));
  return [{ $gt: range.$gt, $lt: cuts[0]! }, ...cuts.slice(0, -1).map((cut, i) => ({ $gte: cut, $lt: cuts[i + 1]! })), { $gte: cuts[cuts.length - 1]!, $lt: range.$lt }];
}

/**
 * The workspace's contacts holding every tag, ordered by contact id; null while the entries
 * are not complete (written before they existed and not yet backfilled: read the contacts).
 */
export async function readSegmentEntries(db: Db, tenantId: string, tags: readonly string[]): Promise<SegmentContact[] | null> {
  if (tags.length === 0) return [];
  if (!(await entriesComplete(db, CONTACT_TAG_ENTRIES))) return null;
  const [first, ...rest] = tags.map(storedTag) as [string, ...string[]];
  const found = new Map<string, SegmentContact>();
  const parts = await Promise.all(
    rangeParts(tagList(tenantId, first)).map(async (part) => {
      const kept: SegmentContact[] = [];
      for await (const entry of contactTagEntriesCollection(db).find({ _id: part }, { batchSize: ENTRY_BATCH })) {
        const [name, email, phone, held] = JSON.parse(entry.c) as [string | null, string | null, string | null, string[]];
        if (rest.every((tag) => held.includes(tag))) kept.push({ contact_id: entryRecordId(entry._id), name, email, phone });
      }
      return kept;
    }),
  );
  for (const part of parts) for (const contact of part) found.set(contact.contact_id, contact);
  // Contacts being written now, or whose writer died before its entries: as they are.
  const marks = await writeMarks(db).find({ _id: entryRange(tenantId) }, { projection: { _id: 1 } }).toArray();
  const marked = [...new Set(marks.map((m) => entryParts(m._id)[1]!))];
  if (marked.length > 0) {
    for (const contact of await findByIds(contacts(db), marked, { projection: SOURCE_PROJECTION })) {
      if (contact.tenant_id !== tenantId) continue;
      if ([first, ...rest].every((tag) => contact.tags.includes(tag))) found.set(contact._id, { contact_id: contact._id, name: contact.name, email: contact.email, phone: contact.phone });
      else found.delete(contact._id);
    }
  }
  return [...found.values()].sort((a, b) => (a.contact_id < b.contact_id ? -1 : a.contact_id > b.contact_id ? 1 : 0));
}

/**
 * Writes the entries of every contact written before they existed (the worker at start;
 * src/db/keyedEntries.ts `backfillEntries`). Inserts only: an entry a contact writer rewrote
 * meanwhile is newer than the contact this walk read, so it is kept.
 */
export async function backfillContactTagEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(
    db,
    CONTACT_TAG_ENTRIES,
    contacts(db),
    idRange('cnt'),
    SOURCE_PROJECTION,
    async (contacts) => {
      const entries = contacts.flatMap(contactTagEntries);
      for (let start = 0; start < entries.length; start += BULK_WRITE_MAX) {
        const { failed, error } = await insertManyUnordered(contactTagEntriesCollection(db), entries.slice(start, start + BULK_WRITE_MAX));
        if (!onlyDuplicateKeys(failed.values())) throw error;
      }
    },
    shouldStop,
  );
}
