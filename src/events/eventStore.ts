import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { insertIfAbsent, insertManyIfAbsent } from '../db/insertIfAbsent';

/**
 * The event store: each fact is stored once, as the envelope webhooks deliver (api-core §6).
 * The event id is derived from the producer's dedupe key, so a retried producer (an activity
 * attempt, an API handler run twice) finds the event it already wrote instead of adding one.
 */
export interface EventDoc {
  /** `evt_` + 24 hex of sha256(tenant, dedupe key). */
  _id: string;
  tenant_id: string;
  type: string;
  /** Whole seconds: the envelope's `created_at` has second precision. */
  created_at: Date;
  /** Null-valued keys already removed (webhook payloads omit them). */
  data: Record<string, unknown>;
  /** What the producer deduplicates on, e.g. `call.ended:call_…`. */
  dedupe_key: string;
  /**
   * Set once delivery workflows were started for it, or at store time when no endpoint
   * received it; null events are picked up by a sweeper (through their marker).
   */
  dispatched_at: Date | null;
  /**
   * The envelope serialised once, at append: every delivery attempt and every replay sends
   * (and signs) these exact bytes, whatever a round trip through the database does to types.
   */
  payload: string;
}

export interface EventInput {
  tenantId: string;
  type: string;
  /** Unique per fact within the tenant: the same key always means the same event. */
  dedupeKey: string;
  data: Record<string, unknown>;
  /** Read once by the producer (never per attempt), so a retry stores the same instant. */
  createdAt: Date;
}

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  tenant_id: string;
  data: Record<string, unknown>;
}

export function eventsCollection(db: Db): Collection<EventDoc> {
  return db.collection<EventDoc>('events');
}

export function eventIdFor(tenantId: string, dedupeKey: string): string {
  return `evt_${createHash('sha256').update(`${tenantId}\u0000${dedupeKey}`).digest('hex').slice(0, 24)}`;
}

/** Drops null and undefined values, recursively through plain objects (not arrays' items). */
export function withoutNulls(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === null || value === undefined) continue;
    out[key] =
      typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
        ? withoutNulls(value as Record<string, unknown>)
        : value;
  }
  return out;
}

/** The document an input stores: id from the dedupe key, time to the second, payload serialised. */
export function newEventDoc(input: EventInput): EventDoc {
  const fields = {
    _id: eventIdFor(input.tenantId, input.dedupeKey),
    tenant_id: input.tenantId,
    type: input.type,
    created_at: new Date(Math.floor(input.createdAt.getTime() / 1000) * 1000),
    data: withoutNulls(input.data),
    dedupe_key: input.dedupeKey,
    dispatched_at: null,
  };
  return { ...fields, payload: JSON.stringify(toEnvelope(fields)) };
}

/**
 * The events still to dispatch, one marker per event (`_id` = event id), written before the
 * event and deleted once it is dispatched. An event no endpoint received when it was
 * published never has one (`appendDispatchedEvent`). The sweeper reads this small collection from its
 * oldest end instead of filtering `events` on `dispatched_at`, which FerretDB on SQLite
 * answers only by scanning every event ever stored.
 */
export interface UndispatchedDoc {
  _id: string;
  created_at: Date;
}

export function undispatchedEvents(db: Db): Collection<UndispatchedDoc> {
  return db.collection<UndispatchedDoc>('events_undispatched');
}

/**
 * Stores the event unless its dedupe key was stored before; returns the stored event either
 * way. The undispatched marker goes first: a producer that dies between the two writes
 * leaves a marker without an event (the sweeper drops it), never an event nobody dispatches.
 */
export async function appendEvent(db: Db, input: EventInput): Promise<EventDoc> {
  const doc = newEventDoc(input);
  await insertIfAbsent(undispatchedEvents(db), { _id: doc._id, created_at: doc.created_at });
  return storeOnce(db, doc);
}

/**
 * `appendEvent` for many inputs (at most BULK_WRITE_MAX) in two unordered `insertMany`s, the
 * markers first, then the events: each input's answer, in the inputs' order, is the event as
 * this call stored it or, for a dedupe key stored before, the stored one (read back in one
 * `_id $in`). A failure between the two writes leaves markers without events, as
 * `appendEvent` may; the sweeper drops them. Inputs sharing a dedupe key are one event.
 */
export async function appendEvents(db: Db, inputs: readonly EventInput[]): Promise<EventDoc[]> {
  return storeEachOnce(db, inputs.map(newEventDoc), (unique) => insertManyIfAbsent(undispatchedEvents(db), unique.map((doc) => ({ _id: doc._id, created_at: doc.created_at }))));
}

/**
 * Stores an event no endpoint receives as already dispatched, in one write and with no
 * marker: there is nothing to hand over, so nothing for the sweeper to finish. Returns the
 * stored event when its dedupe key was stored before, which may be one still undispatched
 * (stored through `appendEvent` by an earlier attempt that found receivers).
 */
export async function appendDispatchedEvent(db: Db, input: EventInput, dispatchedAt: Date): Promise<EventDoc> {
  return storeOnce(db, { ...newEventDoc(input), dispatched_at: dispatchedAt });
}

/**
 * `appendDispatchedEvent` for many inputs in one `insertMany` (unordered): each input's
 * answer, in the inputs' order, is the event as this call stored it or, for a dedupe key
 * stored before (a duplicate `_id`, the same answer `appendDispatchedEvent` takes), the
 * stored one, read back in one `_id $in`. Inputs sharing a dedupe key are one event.
 */
export async function appendDispatchedEvents(db: Db, inputs: readonly EventInput[], dispatchedAt: Date): Promise<EventDoc[]> {
  return storeEachOnce(db, inputs.map((input) => ({ ...newEventDoc(input), dispatched_at: dispatchedAt })));
}

/**
 * Inserts events in one unordered `insertMany` (after `before`, given the unique ones: the
 * markers) and answers each doc's event in order: as inserted, or the one stored before under
 * its dedupe key, read back in one `_id $in`. The first of docs sharing a dedupe key is the one
 * stored, as publishing them in turn would.
 */
async function storeEachOnce(db: Db, docs: EventDoc[], before?: (unique: EventDoc[]) => Promise<unknown>): Promise<EventDoc[]> {
  const first = new Map<string, EventDoc>();
  for (const doc of docs) if (!first.has(doc._id)) first.set(doc._id, doc);
  const unique = [...first.values()];
  if (unique.length === 0) return [];
  await before?.(unique);
  const events = eventsCollection(db);
  const storedBefore = new Set([...(await insertManyIfAbsent(events, unique))].map((position) => unique[position]!._id));
  const existing = new Map((await findByIds(events, [...storedBefore])).map((doc) => [doc._id, doc as EventDoc]));
  return docs.map((doc) => {
    if (!storedBefore.has(doc._id)) return first.get(doc._id)!;
    const found = existing.get(doc._id);
    if (!found) throw new Error(`event ${doc._id} vanished after a duplicate insert`);
    return found;
  });
}

async function storeOnce(db: Db, doc: EventDoc): Promise<EventDoc> {
  const events = eventsCollection(db);
  if (await insertIfAbsent(events, doc)) return doc;
  const existing = await events.findOne({ _id: doc._id });
  if (!existing) throw new Error(`event ${doc._id} vanished after a duplicate insert`);
  return existing;
}

/** Event times (the envelope's `created_at`, and times in event data): whole seconds, `Z`. */
export function eventTimestamp(value: Date): string {
  return `${value.toISOString().slice(0, 19)}Z`;
}

export function toEnvelope(doc: Pick<EventDoc, '_id' | 'type' | 'created_at' | 'tenant_id' | 'data'>): EventEnvelope {
  return {
    id: doc._id,
    type: doc.type,
    created_at: eventTimestamp(doc.created_at),
    tenant_id: doc.tenant_id,
    data: doc.data,
  };
}
