import { setMaxListeners } from 'node:events';
import type { AnyBulkWriteOperation, Db, Filter, UpdateFilter } from 'mongodb';
import { bulkWriteInChunks } from '../db/bulkWrite';
import { findByIds } from '../db/findByIds';
import { eventsCollection, type EventDoc } from '../events/eventStore';
import { endpointReceives } from '../events/types';
import { sendAttempt } from './attempt';
import {
  DRAIN_BATCH,
  DRAIN_PARALLELISM,
  INBOX_LINGER_FAST_MS,
  INBOX_LINGER_MS,
  INBOX_LINGER_POLL_MS,
  INBOX_LINGER_SLOW_POLL_MS,
  MAX_DELIVERY_ATTEMPTS,
  RETRY_DELAYS_MS,
  webhookQueueEntryId,
  type DeliveryRef,
  type DrainInput,
  type DrainResult,
  type EndpointDeliveryTotals,
  type RetryQueue,
} from './contracts';
import { tallyAttempts } from './attemptTallies';
import { cancelDeliveryUpdate, firstAttemptDoc, recordAttemptUpdate, webhookDeliveries, type DeliveryIdentity, type DeliveryStatus, type WebhookDeliveryDoc } from './deliveries';
import { deliveryEntries, deliveryStatusEntries, entryOf, entryWrite, statusEntryWrites, type DeliveryEntryDoc } from './deliveryEntries';
import { webhookEndpoints } from './endpoints';
import { inboxSlotTaken, readInbox, settleInboxWrites, type InboxRead } from './inbox';
import { webhookQueue, type WebhookQueueEntryDoc } from './retryQueue';

/**
 * One drain of an endpoint's deliveries (the endpoint workflow's activity): park what the
 * workflow's inbox cannot hold, take the new deliveries and the queued ones now due, POST them
 * DRAIN_PARALLELISM at a time, record every attempt, queue each failure for its next attempt
 * at the schedule's time, and return the queues' new heads and tails.
 *
 * Safe to run again with the same input (its worker died, MongoDB failed mid-way): an attempt
 * already recorded is not sent again, its recorded outcome stands; a delivery already queued
 * by this drain keeps its place (its `queue_slot` is at or past the tail this drain was
 * given), and one queued by an earlier drain is a duplicate signal and is skipped. Entries
 * are deleted only after every placement is written, so a re-run never loses one.
 *
 * Since issue 28 it also takes new deliveries from the endpoint's MongoDB inbox
 * (src/webhooks/inbox.ts): after its writes it records the inbox's new head (and, when it
 * found the inbox empty and may, that the workflow goes idle). It deletes only entries taken
 * by drains whose results the workflow's history already holds (the workflow says which), so a
 * re-run of any drain not yet in the history reads the same entries as the run it repeats and
 * restores its placements from the records. Before declaring idle it lingers briefly
 * (INBOX_LINGER_MS), so a steady stream of deliveries keeps the workflow draining without a
 * signal per delivery.
 */

export interface DrainDeps {
  db: Db;
  allowPrivate: boolean;
  /** The schedule's clock in ms: due checks and next-attempt times. */
  clock: () => number;
  /** Wall time, for attempt records and signatures. */
  now: () => Date;
  /** Aborts in-flight POSTs (the worker is shutting down). */
  signal?: AbortSignal;
}

interface WorkItem {
  ref: DeliveryRef;
  attempt: number;
}

interface Placement {
  ref: DeliveryRef;
  attempt: number;
  dueAt: number;
  /** Kept from a re-run's earlier placement, or null until assigned. */
  seq: number | null;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` over `items`, at most `limit` at once; waits for all, then throws the first failure. */
async function inPool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await fn(item).catch((err: unknown) => void errors.push(err));
      }
    }),
  );
  if (errors.length > 0) throw errors[0];
}

export async function drainEndpoint(deps: DrainDeps, input: DrainInput): Promise<DrainResult> {
  const { db } = deps;
  // Every POST in flight listens for the one cancellation signal.
  if (deps.signal) setMaxListeners(DRAIN_PARALLELISM + 10, deps.signal);
  const queue = webhookQueue(db);
  const deliveries = webhookDeliveries(db);
  const queues: RetryQueue[] = input.queues.map((q) => ({ ...q }));
  const tailGiven = (attempt: number) => input.queues[attempt - 1]!.tail;
  const totals: EndpointDeliveryTotals = { attempts: 0, succeeded: 0, failed: 0, cancelled: 0 };

  const entryDoc = (ref: DeliveryRef, attempt: number, seq: number, dueAt: number): WebhookQueueEntryDoc => ({
    _id: webhookQueueEntryId(input.endpointId, attempt, seq),
    endpoint_id: input.endpointId,
    delivery_id: ref.deliveryId,
    event_id: ref.eventId,
    trigger: ref.trigger,
    attempt,
    due_at: new Date(dueAt),
  });

  // New deliveries the workflow's inbox could not hold wait in the attempt-1 queue, due at once.
  const parked = queues[0]!;
  if (input.park.length > 0) {
    const docs = input.park.map((ref, i) => entryDoc(ref, 1, parked.tail + i, 0));
    await bulkWriteInChunks(queue, docs.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })), { ordered: false });
    if (parked.head === parked.tail) parked.headDueAt = 0;
    parked.tail += input.park.length;
  }

  // What is due: the new deliveries (the workflow's, then the inbox's), then each queue from
  // its head while entries are due. A run that does not know the inbox's head yet only reads it.
  const now = deps.clock();
  const work: WorkItem[] = input.fresh.map((ref) => ({ ref, attempt: 1 }));
  let inbox: InboxRead | null = null;
  let learnt: { head: number; deletedUpTo: number } | null = null;
  if (input.inbox) {
    if (input.inbox.head === null) {
      const { head, state } = await readInbox(db, input.endpointId, 0, 0);
      learnt = { head, deletedUpTo: state?.deleted ?? head };
    } else {
      inbox = await readInbox(db, input.endpointId, input.inbox.head, DRAIN_BATCH - input.fresh.length);
      work.push(...inbox.refs.map((ref) => ({ ref, attempt: 1 })));
    }
  }
  const consumed: string[] = [];
  let budget = DRAIN_BATCH;
  for (const q of queues) {
    if (q.headDueAt === null || q.headDueAt > now) continue;
    let notDue = false;
    while (q.head < q.tail && budget > 0 && !notDue) {
      const ids: string[] = [];
      for (let seq = q.head; seq < Math.min(q.tail, q.head + Math.min(budget, DRAIN_PARALLELISM)); seq++) ids.push(webhookQueueEntryId(input.endpointId, q.attempt, seq));
      const entries = await Promise.all(ids.map((_id) => queue.findOne({ _id })));
      for (const [i, entry] of entries.entries()) {
        if (entry && entry.due_at.getTime() > now) {
          q.headDueAt = entry.due_at.getTime();
          notDue = true;
          break;
        }
        // A missing entry was drained by an earlier run of this drain, which placed it already.
        consumed.push(ids[i]!);
        q.head++;
        if (entry) {
          work.push({ ref: { deliveryId: entry.delivery_id, eventId: entry.event_id, trigger: entry.trigger }, attempt: q.attempt });
          budget--;
        }
      }
    }
    if (q.head === q.tail) q.headDueAt = null;
    else if (!notDue) q.headDueAt = 0; // the batch is full: the next drain reads on
  }

  // One item per delivery: a parked delivery signalled again must not be sent twice at once.
  const seen = new Set<string>();
  const unique = work.filter((w) => !seen.has(w.ref.deliveryId) && seen.add(w.ref.deliveryId));

  // The endpoint, the records and the events in three reads (`_id $in`, from the index).
  const [endpoint, records, events] = await Promise.all([
    unique.length > 0 ? webhookEndpoints(db).findOne({ _id: input.endpointId }) : null,
    findByIds(deliveries, unique.map((w) => w.ref.deliveryId)),
    findByIds(eventsCollection(db), unique.map((w) => w.ref.eventId)),
  ]);
  const live = endpoint && endpoint.tenant_id === input.tenantId ? endpoint : null;
  const recordOf = new Map<string, WebhookDeliveryDoc>(records.map((doc) => [doc._id, doc]));
  const eventOf = new Map<string, EventDoc>(events.map((doc) => [doc._id, doc]));

  /** The next place of a delivery whose attempt an earlier run recorded, or null if there is nothing to do. */
  function placedBefore(ref: DeliveryRef, attempt: number, record: WebhookDeliveryDoc): Placement | null {
    const next = attempt + 1;
    const slot = record.queue_slot;
    if (slot && (slot.attempt > next || (slot.attempt === next && slot.seq < tailGiven(next)))) return null; // queued by an earlier drain
    return { ref, attempt: next, dueAt: record.next_attempt_at?.getTime() ?? now, seq: slot?.attempt === next ? slot.seq : null };
  }

  // Reads and POSTs first, the writes together afterwards: FerretDB on SQLite has one writer
  // at a time, and parallel writers wait on each other's locks (measured: a drain of 32 took
  // 250–800 ms with a write per POST, see docs/decisions/README.md). A drain that dies before its
  // writes records nothing, and its re-run sends again: at least once.
  const writes: AnyBulkWriteOperation<WebhookDeliveryDoc>[] = [];
  const placements: Placement[] = [];
  const update = ([filter, change, options]: readonly [Filter<WebhookDeliveryDoc>, UpdateFilter<WebhookDeliveryDoc>, { upsert: boolean }]) =>
    writes.push({ updateOne: { filter, update: change, upsert: options.upsert } });

  // Each delivery's list entry at its new status (src/webhooks/deliveryEntries.ts), written before the records.
  const entryWrites: AnyBulkWriteOperation<DeliveryEntryDoc>[] = [];
  const statusWrites: AnyBulkWriteOperation<DeliveryEntryDoc>[] = [];
  function listed(who: DeliveryIdentity, record: WebhookDeliveryDoc | null, status: DeliveryStatus, at: Date): void {
    const createdAt = record?.created_at ?? at;
    const entry = entryOf({ _id: who.deliveryId, tenant_id: who.tenantId, endpoint_id: who.endpointId, event_id: who.eventId, status, created_at: createdAt });
    if (record?.status === status) return; // a retry still pending: its entries stand
    entryWrites.push(entryWrite(entry, !record));
    statusWrites.push(...statusEntryWrites(entry, record?.status ?? null));
  }

  async function deliver({ ref, attempt }: WorkItem): Promise<void> {
    const record = recordOf.get(ref.deliveryId) ?? null;
    const event = eventOf.get(ref.eventId) ?? null;
    if (record && record.status !== 'pending') return; // ended already
    if (record?.attempts?.some((a) => a.attempt === attempt)) {
      const placed = placedBefore(ref, attempt, record);
      if (placed) placements.push(placed);
      return;
    }
    if (!event || event.tenant_id !== input.tenantId) return; // never expected: an event outlives its deliveries
    const who: DeliveryIdentity = { deliveryId: ref.deliveryId, tenantId: input.tenantId, endpointId: input.endpointId, eventId: ref.eventId, eventType: event.type, trigger: ref.trigger };
    // A new event delivery the endpoint no longer takes is dropped unrecorded, as a fan-out
    // listing the endpoints now would not have listed it (the publisher's endpoint cache
    // may be seconds old); a delivery under way, a replay or a test is cancelled.
    const newFromEvent = ref.trigger === 'event' && attempt === 1 && !record;
    if (!live || !live.enabled || (newFromEvent && !endpointReceives(live.event_types, event.type))) {
      if (newFromEvent) return;
      const at = deps.now();
      update(cancelDeliveryUpdate(who, live ? 'endpoint_disabled' : 'endpoint_deleted', at));
      listed(who, record, 'cancelled', at);
      totals.cancelled++;
      return;
    }

    const sent = await sendAttempt({ endpoint: live, eventId: ref.eventId, payload: event.payload, attempt, allowPrivate: deps.allowPrivate, signal: deps.signal, now: deps.now });
    const status = sent.ok ? 'succeeded' : attempt >= MAX_DELIVERY_ATTEMPTS ? 'failed' : 'pending';
    const doneAt = deps.now();
    const dueAt = status === 'pending' ? deps.clock() + RETRY_DELAYS_MS[attempt - 1]! : null;
    const outcome = { attempt: sent.record, status, nextAttemptAt: dueAt === null ? null : new Date(dueAt), completedAt: status === 'pending' ? null : doneAt } as const;
    if (record) update(recordAttemptUpdate(who, outcome, doneAt));
    else writes.push({ insertOne: { document: firstAttemptDoc(who, outcome, doneAt) } });
    listed(who, record, status, doneAt);
    totals.attempts++;
    if (status === 'succeeded') totals.succeeded++;
    if (status === 'failed') totals.failed++;
    if (dueAt !== null) placements.push({ ref, attempt: attempt + 1, dueAt, seq: null });
  }

  await inPool(unique, DRAIN_PARALLELISM, deliver);
  // Entries first: one left by a drain that dies before its records is dropped by the list
  // (no record, or another time), and the re-run writes the records' entries again.
  await bulkWriteInChunks(deliveryEntries(db), entryWrites, { ordered: false });
  await bulkWriteInChunks(deliveryStatusEntries(db), statusWrites, { ordered: false });
  await bulkWriteInChunks(deliveries, writes, { ordered: false });
  // After the records: a re-run finds these attempts recorded and neither sends nor counts them again.
  await tallyAttempts(db, { tenantId: input.tenantId, endpointId: input.endpointId }, totals, deps.now());

  // Failures join the queue of their next attempt in the order they fall due, so each queue's
  // head is its next due entry. Entries first, then the deliveries' slots (see above).
  const entries: AnyBulkWriteOperation<WebhookQueueEntryDoc>[] = [];
  const slots: AnyBulkWriteOperation<WebhookDeliveryDoc>[] = [];
  for (const q of queues) {
    const mine = placements.filter((p) => p.attempt === q.attempt);
    if (mine.length === 0) continue;
    const wasEmpty = q.head === q.tail;
    const unplaced = mine.filter((p) => p.seq === null).sort((a, b) => a.dueAt - b.dueAt || (a.ref.deliveryId < b.ref.deliveryId ? -1 : 1));
    let seq = Math.max(q.tail, ...mine.filter((p) => p.seq !== null).map((p) => p.seq! + 1));
    for (const p of unplaced) p.seq = seq++;
    q.tail = Math.max(q.tail, seq);
    for (const p of mine) {
      const doc = entryDoc(p.ref, p.attempt, p.seq!, p.dueAt);
      entries.push({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } });
      slots.push({ updateOne: { filter: { _id: p.ref.deliveryId }, update: { $set: { queue_slot: { attempt: p.attempt, seq: p.seq! } } } } });
    }
    if (wasEmpty) q.headDueAt = Math.min(...mine.map((p) => p.dueAt));
  }
  await bulkWriteInChunks(queue, entries, { ordered: false });
  await bulkWriteInChunks(deliveries, slots, { ordered: false });
  await bulkWriteInChunks(queue, consumed.map((_id) => ({ deleteOne: { filter: { _id } } })), { ordered: false });
  if (!input.inbox) return { queues, totals };
  if (!inbox) return { queues, totals, inbox: { ...learnt!, empty: false } };
  return { queues, totals, inbox: await settleInbox(deps, input.endpointId, inbox, input.inbox) };
}

/**
 * After the drain's writes: linger on an empty inbox, delete the slots the workflow says are
 * done with and record the new head (and idleness), then look once more after declaring idle
 * (an entry inserted before that write would otherwise wait for a signal nobody sends).
 */
async function settleInbox(
  deps: DrainDeps,
  endpointId: string,
  read: InboxRead,
  { mayIdle, deleteFrom, deleteTo }: NonNullable<DrainInput['inbox']>,
): Promise<{ head: number; empty: boolean; deletedUpTo: number }> {
  const { db } = deps;
  let empty = read.empty;
  if (empty && mayIdle) {
    const started = performance.now();
    while (empty && performance.now() - started < INBOX_LINGER_MS && !deps.signal?.aborted) {
      await pause(performance.now() - started < INBOX_LINGER_FAST_MS ? INBOX_LINGER_POLL_MS : INBOX_LINGER_SLOW_POLL_MS);
      if (await inboxSlotTaken(db, endpointId, read.head)) empty = false;
    }
  }
  const idle = empty && mayIdle;
  const deleted = Math.max(deleteTo, read.state?.deleted ?? 0);
  const changed = read.state?.head !== read.head || read.state.idle !== idle || read.state.deleted !== deleted;
  await settleInboxWrites(db, endpointId, changed ? { head: read.head, idle, deleted } : null, deleteFrom, deleteTo, deps.now());
  if (idle && (await inboxSlotTaken(db, endpointId, read.head))) empty = false;
  return { head: read.head, empty, deletedUpTo: deleteTo };
}
