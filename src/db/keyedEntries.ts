import type { Collection, Db, Filter } from 'mongodb';
import { BULK_WRITE_MAX } from './bulkWrite';
import { ID_IN_MAX, findByIds } from './findByIds';
import { insertManyUnordered } from './insertIfAbsent';
import { upsertOne } from './upsert';
import { onlyDuplicateKeys } from './duplicateKey';

/**
 * Keyed entries: a list's order and key written into the `_id` of a small document per record
 * (`<tenant>|to:<number>|<call id>`), so a page is one `_id` range read newest or oldest first
 * and one `_id: {$in}` read of the records. On FerretDB (SQLite) both are answered from the
 * `_id` index (the range by the patched build, docs/decisions/platform.md "FerretDB's `_id`
 * ranges"), where a filter or sort on any other field reads the whole collection; on MongoDB
 * they are the primary key's reads. An entry is written before its record, so a crash leaves
 * an entry without a record (skipped when read), never a record missing from its list.
 */
export interface EntryDoc {
  /** The key's parts joined by `|`, the record's id last. */
  _id: string;
  /**
   * What a list keeps beside a key so a walk can pass over records without reading them (the
   * customer's names on a conversation's recent entry). An entry without its fields is one
   * written before they were: its record is read.
   */
  [field: string]: unknown;
}

const SEPARATOR = '|';
/** The character after the separator: `<prefix>}` is above every `<prefix>|…`. */
const PAST_SEPARATOR = String.fromCharCode(SEPARATOR.charCodeAt(0) + 1);
/**
 * Parts are ids, E.164 numbers and hex times. The separator would split a part in two, and
 * characters JSON escapes (`"`, `\`, `<`, `>`, `&`, controls) are outside what the patched
 * FerretDB range compares byte by byte, so neither may be in a part.
 */
const RESERVED = new Set(['|', '"', '\\', '<', '>', '&']);
function unsafe(part: string): boolean {
  for (let i = 0; i < part.length; i++) {
    const code = part.charCodeAt(i);
    if (RESERVED.has(part[i]!) || code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Whether a text may be a key's part as it is (a value written by someone else, checked before it becomes a key). */
export function isEntryKeyPart(part: string): boolean {
  return part.length > 0 && !unsafe(part);
}

export function entryKey(...parts: string[]): string {
  for (const part of parts) {
    if (part.length === 0 || unsafe(part)) throw new Error(`entry key part ${JSON.stringify(part)} is empty or holds a reserved character`);
  }
  return parts.join(SEPARATOR);
}

/** A key within a list (a prefix `entryKey` made): the list's parts, then these. */
export function entryKeyIn(list: string, ...parts: string[]): string {
  return `${list}${SEPARATOR}${entryKey(...parts)}`;
}

/** A time as 12 hex digits of milliseconds: its order is the time's, as in `newId` (src/domain/ids.ts). */
export function timeKey(at: Date): string {
  return at.getTime().toString(16).padStart(12, '0');
}

/** Every key that starts with `prefix`'s parts. */
export function entryRange(prefix: string): { $gt: string; $lt: string } {
  return { $gt: `${prefix}${SEPARATOR}`, $lt: `${prefix}${PAST_SEPARATOR}` };
}

/** The key's parts. */
export function entryParts(key: string): string[] {
  return key.split(SEPARATOR);
}

/** The record an entry stands for: its key's last part. */
export function entryRecordId(key: string): string {
  return key.slice(key.lastIndexOf(SEPARATOR) + 1);
}

/** Inserts the entries that are not there yet (a retry writes the same keys), `BULK_WRITE_MAX` per command. */
export async function writeEntries(collection: Collection<EntryDoc>, keys: readonly string[]): Promise<void> {
  await writeEntryDocs(collection, keys.map((_id) => ({ _id })));
}

/**
 * As `writeEntries`, entries with fields. An entry that is there already keeps its key but not
 * its fields: which writer's they are is not known (no conditional updates on FerretDB), so
 * they are removed and the walk reads that record, never trusting fields that may be stale.
 * A backfill passes `existing: 'kept'`: an entry there is its writer's, right as it is.
 */
export async function writeEntryDocs(collection: Collection<EntryDoc>, docs: readonly EntryDoc[], existing: 'unknown' | 'kept' = 'unknown'): Promise<void> {
  const distinct = [...new Map(docs.map((d) => [d._id, d])).values()];
  for (let start = 0; start < distinct.length; start += BULK_WRITE_MAX) {
    const slice = distinct.slice(start, start + BULK_WRITE_MAX);
    const { failed, error } = await insertManyUnordered(collection, slice);
    if (!onlyDuplicateKeys(failed.values())) throw error;
    if (existing === 'kept') continue;
    const withFields = [...failed.keys()].map((n) => slice[n]!).filter((d) => Object.keys(d).length > 1);
    for (const doc of withFields) {
      const fields = Object.fromEntries(Object.keys(doc).filter((f) => f !== '_id').map((f) => [f, '' as const]));
      await collection.updateOne({ _id: doc._id }, { $unset: fields });
    }
  }
}

/** A record's move in its lists around one write of it (`movingEntries`). */
export interface EntriesMove<R, W extends R | null> {
  entries: Collection<EntryDoc>;
  /** Every key the record has in its lists, as the record is. */
  keysOf: (record: R) => string[];
  /** The record as stored before the write, its keys in place; null when not known (a first write, a claim out of turn). */
  before: R | null;
  /** The record as the write will leave it. */
  next: R;
  /** The write: the record as written (the truth, which another writer may have made differ from `next`), or null when it wrote nothing. */
  write: () => Promise<W>;
  /** Keys of `next` the caller has written already (an insert's, just before this update). */
  alreadyWritten?: readonly string[];
  /** The entry a key of `record` is written as, where a list keeps fields beside its keys; `{ _id: key }` when absent. */
  entryOf?: (key: string, record: R) => EntryDoc;
}

/**
 * Moves a record in its lists around a write, without transactions or conditional updates
 * (neither holds on FerretDB): `next`'s keys are inserted before the write, so the record is
 * never missing from a list it is in; the keys the written record has that were not written
 * before it (another writer's outcome) are inserted after; then the keys of `before` and
 * `next` the written record does not have are deleted, so a reader skips a stale key only
 * between the write and that delete (or for good after a crash, as it checks the record).
 * When `next` has no key that is neither `before`'s nor `alreadyWritten` (a write that keeps
 * the sort keys), nothing is inserted before the write. Nothing is deleted when the write
 * wrote nothing.
 */
export async function movingEntries<R, W extends R | null>(move: EntriesMove<R, W>): Promise<W> {
  const beforeKeys = new Set(move.before ? move.keysOf(move.before) : []);
  const nextKeys = move.keysOf(move.next);
  const alreadyWritten = new Set(move.alreadyWritten);
  const moving = nextKeys.some((k) => !beforeKeys.has(k) && !alreadyWritten.has(k));
  const entryOf = move.entryOf ?? ((_id: string) => ({ _id }));
  if (moving) await writeEntryDocs(move.entries, nextKeys.map((k) => entryOf(k, move.next)));
  const record = await move.write();
  if (!record) return record;
  const now = new Set(move.keysOf(record));
  const there = moving ? new Set(nextKeys) : new Set([...beforeKeys, ...alreadyWritten]);
  const missing = [...now].filter((k) => !there.has(k));
  if (missing.length > 0) await writeEntryDocs(move.entries, missing.map((k) => entryOf(k, record)));
  const stale = [...new Set([...beforeKeys, ...nextKeys])].filter((k) => !now.has(k));
  if (stale.length > 0) await move.entries.deleteMany({ _id: { $in: stale } });
  return record;
}

export interface EntryWalk<T extends { _id: string }> {
  entries: Collection<EntryDoc>;
  /** The list: every entry key starting with these parts. */
  prefix: string;
  /** -1 newest (highest key) first. */
  order: 1 | -1;
  /** Exclusive bound within the list: the rest of the key after `prefix|` the previous page ended on. */
  from: string | null;
  /** Exclusive bound at the walk's far end (the rest of a key after `prefix|`), where the list's end is not the filter's (dues due before today); none: the list's end. */
  until?: string | null;
  limit: number;
  records: Collection<T>;
  /** Whether the record is still in the list under this key (its workspace, a moved sort key, the other filters). */
  keep: (record: T, key: string) => boolean;
  /** Which entries are worth reading the record of (a filter the key or the entry's `entryFields` answer); every entry when absent. */
  admit?: (key: string, entry: EntryDoc) => boolean | Promise<boolean>;
  /** The entry fields `admit` reads beside the key. */
  entryFields?: readonly string[];
}

/**
 * The first `limit` records of a list from `from` on: its entries read a batch at a time in
 * key order (the first batch exactly `limit`, so an unfiltered page reads its page of entries
 * and its page of records), each batch's records in one `$in` (those `admit` lets through, no
 * more at a time than the page lacks), those `keep` refuses or that are gone skipped. Stops at
 * a full page or the list's end.
 */
export async function readThroughEntries<T extends { _id: string }>(walk: EntryWalk<T>): Promise<T[]> {
  const range = entryRange(walk.prefix);
  const kept: T[] = [];
  let bound = walk.from === null ? null : `${walk.prefix}${SEPARATOR}${walk.from}`;
  const end = walk.until == null ? null : `${walk.prefix}${SEPARATOR}${walk.until}`;
  let batch = walk.limit;
  for (;;) {
    const ids: Filter<EntryDoc> =
      walk.order === -1 ? { _id: { $gt: end ?? range.$gt, $lt: bound ?? range.$lt } } : { _id: { $gt: bound ?? range.$gt, $lt: end ?? range.$lt } };
    const projection = Object.fromEntries([['_id', 1], ...(walk.entryFields ?? []).map((f) => [f, 1])]);
    const entries = await walk.entries.find(ids, { projection }).sort({ _id: walk.order }).limit(batch).toArray();
    const keys = entries.map((e) => e._id);
    if (keys.length === 0) return kept;
    const admit = walk.admit;
    const verdicts = admit ? await Promise.all(entries.map((e) => Promise.resolve(admit(e._id, e)))) : null;
    const admitted = verdicts ? keys.filter((_, n) => verdicts[n]) : keys;
    // Admitted by `admit`, the records are read as many at a time as the page still lacks: a batch may admit more than that.
    for (let start = 0; start < admitted.length; ) {
      const take = admit ? walk.limit - kept.length : admitted.length;
      const slice = admitted.slice(start, start + take);
      start += take;
      const found = new Map<string, T>((await findByIds(walk.records, slice.map(entryRecordId))).map((r) => [r._id as string, r as T]));
      for (const key of slice) {
        const record = found.get(entryRecordId(key));
        if (record && walk.keep(record, key)) kept.push(record);
        if (kept.length === walk.limit) return kept;
      }
    }
    if (keys.length < batch) return kept;
    bound = keys[keys.length - 1]!;
    batch = Math.min(batch * 2, ID_IN_MAX);
  }
}

interface BackfillDoc {
  /** The entries' name, e.g. `call_number_entries`. */
  _id: string;
  /** The last record id done, walking down from the newest. */
  before: string | null;
  done: boolean;
}

const backfills = (db: Db) => db.collection<BackfillDoc>('entry_backfills');

/** Entries known complete in this process: once done, a backfill is done for good. */
const complete = new Set<string>();

/**
 * Whether every record written before the entries existed has its entry: until then a list
 * reads the old way (correct, slow), so an upgrade never shows a short list.
 */
export async function entriesComplete(db: Db, name: string): Promise<boolean> {
  if (complete.has(name)) return true;
  const mark = await backfills(db).findOne({ _id: name });
  if (mark?.done) complete.add(name);
  return mark?.done === true;
}

/** Marks entries complete without a walk: a store whose every record was written with its entries (the scale seed). */
export async function markEntriesComplete(db: Db, name: string): Promise<void> {
  await upsertOne(backfills(db), { _id: name }, { $set: { before: null, done: true } });
  complete.add(name);
}

/** How many records one backfill step reads; its entries go in `BULK_WRITE_MAX` per insert. */
export const BACKFILL_BATCH = 200;

/**
 * Writes the entries of every record of `records` whose id is in `idRange`, newest first (a
 * list fills from its top), `BACKFILL_BATCH` records a step, each step one `_id` range read
 * served by the index and the step's entries; the position is saved after each step, so a
 * restart resumes and several processes may run it at once (the entries are idempotent). New
 * records get their entries from their writers, so the walk starts below the newest id at its
 * first step and ends at the oldest. Several names: one walk writes the entries of each (one
 * read of the records for all), its position kept under the names joined by `+` (so a walk for
 * another set of names starts afresh), each name marked complete at its end.
 */
export async function backfillEntries<T extends { _id: string }>(
  db: Db,
  names: string | readonly string[],
  records: Collection<T>,
  idRange: { $gt: string; $lt: string },
  projection: Record<string, 1>,
  write: (batch: T[]) => Promise<void>,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  const marks = backfills(db);
  const each = typeof names === 'string' ? [names] : names;
  const name = each.join('+');
  // Each name before the walk's own mark: a walk marked done has marked every name.
  const finish = async () => {
    for (const n of new Set([...each, name])) await markEntriesComplete(db, n);
  };
  const mark = await marks.findOne({ _id: name });
  if (mark?.done) {
    for (const n of [...each, name]) complete.add(n);
    return;
  }
  let before = mark?.before ?? null;
  while (!shouldStop()) {
    const filter = { _id: { $gt: idRange.$gt, $lt: before ?? idRange.$lt } } as Filter<T>;
    const batch = (await records.find(filter, { projection }).sort({ _id: -1 }).limit(BACKFILL_BATCH).toArray()) as T[];
    if (batch.length > 0) await write(batch);
    if (batch.length < BACKFILL_BATCH) {
      await finish();
      return;
    }
    before = batch[batch.length - 1]!._id;
    await upsertOne(marks, { _id: name }, { $set: { before, done: false } });
  }
}
