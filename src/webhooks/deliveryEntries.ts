import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { BULK_WRITE_MAX } from '../db/bulkWrite';
import { insertManyUnordered } from '../db/insertIfAbsent';
import type { DeliveryStatus, WebhookDeliveryDoc } from './deliveries';
import { upsertOne } from '../db/upsert';

/**
 * The console's list of an endpoint's deliveries (newest `created_at` first, then `_id`) read
 * in its order from an index FerretDB on SQLite serves: one small entry per delivery whose `_id`
 * is `<tenant>|<endpoint>|<created_at ms, 12 hex>|<delivery id>`, so an endpoint's deliveries
 * newest first are a string range of `_id` walked backwards (the patched build stops at the
 * page's end; docs/decisions/platform.md, "FerretDB's `_id` ranges"). A delivery's own `_id`
 * is its workflow id (`<event>:<endpoint>`), not in that order, so the list read every
 * delivery of the collection (docs/decisions/performance.md, "A year of data").
 *
 * The status filter reads a second family, `<tenant>|<endpoint>|<status>|<created_at>|<delivery
 * id>` in its own collection, moved (insert the new, delete the old) when a delivery's status
 * changes: a rare status (3 % failed) walked on the first family read about 30 rows per row shown.
 *
 * The entries are written by whoever creates or moves the delivery, before its record, with the
 * record's time; they carry the delivery's status and event (the event filter is checked on the
 * walk). The record stays the truth: the list drops an entry whose record is absent, is another
 * delivery's, or has another `created_at` or status (a writer that died between the writes).
 */
export interface DeliveryEntryDoc {
  _id: string;
  tenant_id: string;
  endpoint_id: string;
  delivery_id: string;
  event_id: string;
  status: DeliveryStatus;
  created_at: Date;
}

/** An endpoint whose deliveries written before the entries existed have their entries (see `backfillEndpointEntries`). */
interface EntryBackfillDoc {
  /** `<tenant>|<endpoint>`. */
  _id: string;
  created_at: Date;
}

export function deliveryEntries(db: Db): Collection<DeliveryEntryDoc> {
  return db.collection<DeliveryEntryDoc>('webhook_delivery_entries');
}

/** The status family (see above); the same documents, keyed by status first. */
export function deliveryStatusEntries(db: Db): Collection<DeliveryEntryDoc> {
  return db.collection<DeliveryEntryDoc>('webhook_delivery_status_entries');
}

function entryBackfills(db: Db): Collection<EntryBackfillDoc> {
  return db.collection<EntryBackfillDoc>('webhook_delivery_entry_backfills');
}

/** Milliseconds as 12 hex digits (fixed width, so the keys sort by time; enough until the year 10889). */
const timeKey = (at: Date): string => at.getTime().toString(16).padStart(12, '0');

/** The entry's `_id`: sorts an endpoint's deliveries as the list does, by `created_at` then delivery id. */
export function deliveryEntryId(tenantId: string, endpointId: string, createdAt: Date, deliveryId: string): string {
  return `${tenantId}|${endpointId}|${timeKey(createdAt)}|${deliveryId}`;
}

/** Every entry of one endpoint: above `<tenant>|<endpoint>|`, below the character after `|`. */
export function endpointEntryRange(tenantId: string, endpointId: string): { $gt: string; $lt: string } {
  const prefix = `${tenantId}|${endpointId}`;
  return { $gt: `${prefix}|`, $lt: `${prefix}${String.fromCharCode('|'.charCodeAt(0) + 1)}` };
}

/** A status entry's `_id`: one endpoint's deliveries of one status, sorted as the list does. */
export function deliveryStatusEntryId(tenantId: string, endpointId: string, status: DeliveryStatus, createdAt: Date, deliveryId: string): string {
  return `${tenantId}|${endpointId}|${status}|${timeKey(createdAt)}|${deliveryId}`;
}

/** Every status entry of one endpoint and one status. */
export function statusEntryRange(tenantId: string, endpointId: string, status: DeliveryStatus): { $gt: string; $lt: string } {
  const prefix = `${tenantId}|${endpointId}|${status}`;
  return { $gt: `${prefix}|`, $lt: `${prefix}${String.fromCharCode('|'.charCodeAt(0) + 1)}` };
}

/** The entry of a delivery as its record is (or is about to be) written. */
export function entryOf(d: Pick<WebhookDeliveryDoc, '_id' | 'tenant_id' | 'endpoint_id' | 'event_id' | 'status' | 'created_at'>): DeliveryEntryDoc {
  return {
    _id: deliveryEntryId(d.tenant_id, d.endpoint_id, d.created_at, d._id),
    tenant_id: d.tenant_id,
    endpoint_id: d.endpoint_id,
    delivery_id: d._id,
    event_id: d.event_id,
    status: d.status,
    created_at: d.created_at,
  };
}

/**
 * A delivery's entry at its new status: inserted when the delivery is new, its status set
 * when not (by `_id` alone, answered from the index). Idempotent: a re-run writes the same.
 */
export function entryWrite(entry: DeliveryEntryDoc, isNew: boolean): AnyBulkWriteOperation<DeliveryEntryDoc> {
  return isNew
    ? { updateOne: { filter: { _id: entry._id }, update: { $set: { status: entry.status }, $setOnInsert: { tenant_id: entry.tenant_id, endpoint_id: entry.endpoint_id, delivery_id: entry.delivery_id, event_id: entry.event_id, created_at: entry.created_at } }, upsert: true } }
    : { updateOne: { filter: { _id: entry._id }, update: { $set: { status: entry.status } } } };
}

/**
 * A delivery's status entry moved from `previous` (null: a new delivery) to the entry's status:
 * the new one upserted, the old one deleted (by `_id`). Nothing when the status stays.
 */
export function statusEntryWrites(entry: DeliveryEntryDoc, previous: DeliveryStatus | null): AnyBulkWriteOperation<DeliveryEntryDoc>[] {
  if (previous === entry.status) return [];
  const { _id: _plain, ...fields } = entry;
  const id = deliveryStatusEntryId(entry.tenant_id, entry.endpoint_id, entry.status, entry.created_at, entry.delivery_id);
  const writes: AnyBulkWriteOperation<DeliveryEntryDoc>[] = [{ updateOne: { filter: { _id: id }, update: { $set: fields }, upsert: true } }];
  if (previous) writes.push({ deleteOne: { filter: { _id: deliveryStatusEntryId(entry.tenant_id, entry.endpoint_id, previous, entry.created_at, entry.delivery_id) } } });
  return writes;
}

/** A status entry as a document, for a writer that inserts (the backfill, the scale seed, a new delivery). */
export function statusEntryOf(entry: DeliveryEntryDoc): DeliveryEntryDoc {
  return { ...entry, _id: deliveryStatusEntryId(entry.tenant_id, entry.endpoint_id, entry.status, entry.created_at, entry.delivery_id) };
}

/**
 * Deliveries recorded before their endpoint's entries existed get theirs on the list's first
 * read of that endpoint, once (a marker per endpoint): the deliveries are at most the events'
 * retention old, so this is at most a week of one endpoint, and an endpoint nobody lists costs
 * nothing. Inserts of `BULK_WRITE_MAX` at a time, a duplicate (written since) skipped.
 */
export async function backfillEndpointEntries(db: Db, tenantId: string, endpointId: string, deliveries: Collection<WebhookDeliveryDoc>, now: Date): Promise<void> {
  const marker = `${tenantId}|${endpointId}`;
  if (await entryBackfills(db).findOne({ _id: marker })) return;
  const cursor = deliveries.find({ tenant_id: tenantId, endpoint_id: endpointId }, { projection: { _id: 1, tenant_id: 1, endpoint_id: 1, event_id: 1, status: 1, created_at: 1 } });
  let batch: DeliveryEntryDoc[] = [];
  const flush = async () => {
    await insertManyUnordered(deliveryEntries(db), batch);
    await insertManyUnordered(deliveryStatusEntries(db), batch.map(statusEntryOf));
    batch = [];
  };
  for await (const d of cursor) {
    batch.push(entryOf(d));
    if (batch.length === BULK_WRITE_MAX) await flush();
  }
  if (batch.length > 0) await flush();
  await upsertOne(entryBackfills(db), { _id: marker }, { $setOnInsert: { created_at: now } });
}

/** The marker `backfillEndpointEntries` leaves, for a writer that creates the entries itself (the scale seed). */
export function entryBackfillDone(tenantId: string, endpointId: string, now: Date): EntryBackfillDoc {
  return { _id: `${tenantId}|${endpointId}`, created_at: now };
}

export function entryBackfillCollection(db: Db): Collection<EntryBackfillDoc> {
  return entryBackfills(db);
}
