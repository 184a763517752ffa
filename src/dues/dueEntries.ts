import type { Collection, Db } from 'mongodb';
import { backfillEntries, entryKey, entryKeyIn, movingEntries, writeEntries, type EntryDoc } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { duesCollections, isOpen, type DueDoc, type DueStatus } from './store';

/**
 * A workspace's dues in due-date order, as keyed entries (src/db/keyedEntries.ts), so the
 * public and console dues lists read their page and not the dues collection:
 * - every due, `<tenant>|dues|<due_date>|<due id>` (no filter);
 * - by status, `<tenant>|dues:status:<status>|<due_date>|<due id>` (`status`, scopes `paid` and `upcoming`);
 * - open ones, `<tenant>|dues:open|<due_date>|<due id>` (scopes `open` and `overdue`);
 * - by subscriber, `<tenant>|dues:sub:<subscriber id>|<due_date>|<due id>` (the console's
 *   subscriber filter and page; a status with it is checked on the record: a subscriber has
 *   few dues).
 * A due's date and subscriber never change, so only its status keys move, and only through
 * `changeDue` (src/dues/dueVersions.ts): the new keys before the write, the old ones removed
 * after. A due's status only moves forward (open statuses in chase order, then one final
 * status), so a key removed is never wanted again. A key whose status is not the due's is
 * skipped when read.
 */
export const dueEntriesCollection = (db: Db): Collection<EntryDoc> => db.collection<EntryDoc>('due_entries');

/** The backfill's name (src/db/keyedEntries.ts `entriesComplete`). */
export const DUE_ENTRIES = 'due_entries';

type Keyed = Pick<DueDoc, '_id' | 'tenant_id' | 'subscriber_id' | 'due_date' | 'status'>;

export const allDuesList = (tenantId: string): string => entryKey(tenantId, 'dues');
export const duesInStatusList = (tenantId: string, status: DueStatus): string => entryKey(tenantId, `dues:status:${status}`);
export const openDuesList = (tenantId: string): string => entryKey(tenantId, 'dues:open');
export const subscriberDuesList = (tenantId: string, subscriberId: string): string => entryKey(tenantId, `dues:sub:${subscriberId}`);

/** Where a due is in its lists (after the list's prefix); also where a page ending on it continues from. */
export const duePosition = (dueDate: string, dueId: string): string => entryKey(dueDate, dueId);

export function dueKeys(d: Keyed): string[] {
  const keys = [allDuesList(d.tenant_id), duesInStatusList(d.tenant_id, d.status), subscriberDuesList(d.tenant_id, d.subscriber_id)];
  if (isOpen(d.status)) keys.push(openDuesList(d.tenant_id));
  return keys.map((list) => entryKeyIn(list, d.due_date, d._id));
}

/** Before the due is inserted (idempotent: raising the same cycle again writes the same keys). */
export async function writeDueEntries(db: Db, dues: readonly Keyed[]): Promise<void> {
  await writeEntries(dueEntriesCollection(db), dues.flatMap(dueKeys));
}

/** Removes the keys a raise wrote again (`written`) for a due that had already moved on (`current`). */
export async function dropDueEntriesNotOf(db: Db, written: Keyed, current: Keyed): Promise<void> {
  const keep = dueKeys(current);
  const stale = dueKeys(written).filter((k) => !keep.includes(k));
  if (stale.length > 0) await dueEntriesCollection(db).deleteMany({ _id: { $in: stale } });
}

/**
 * Moves a due in its status lists around a version's write (src/db/keyedEntries.ts
 * `movingEntries`): `next` (the due as the version will leave it) before `write`, then the keys
 * of `before` the written due no longer has removed. The written due is the truth: keys it has
 * that were not foreseen are written too. A version that keeps the status (a reminder count, a
 * payment link) moves nothing.
 */
export function movingDueEntries(db: Db, before: Keyed, next: Keyed, write: () => Promise<DueDoc | null>): Promise<DueDoc | null> {
  return movingEntries({ entries: dueEntriesCollection(db), keysOf: dueKeys, before, next, write });
}

/** The entries of dues written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillDueEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(
    db,
    DUE_ENTRIES,
    duesCollections(db).dues,
    idRange('due'),
    { _id: 1, tenant_id: 1, subscriber_id: 1, due_date: 1, status: 1 },
    (batch) => writeDueEntries(db, batch),
    shouldStop,
  );
}
