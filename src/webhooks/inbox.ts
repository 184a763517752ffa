import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { BULK_WRITE_MAX, bulkWriteInChunks } from '../db/bulkWrite';
import { findByIds } from '../db/findByIds';
import { insertManyIfAbsent } from '../db/insertIfAbsent';
import { webhookInboxEntryId, type DeliveryRef } from './contracts';
import type { DeliveryTrigger } from './deliveries';

/**
 * An endpoint's inbox (since issue 28): its new deliveries, parked in MongoDB by the
 * publishers and read by the endpoint workflow's drain, so that publishing never waits on
 * signalling a workflow (which refuses signals for seconds while it continues as new).
 *
 * Slots. Entry `seq` of an endpoint has `_id` `webhookInboxEntryId(endpoint, seq)`. A
 * publisher claims a slot by inserting the entry there (a unique insert: the one write
 * FerretDB makes atomic under concurrent writers); a duplicate means the slot is taken and it
 * tries the next. A publisher's first guess is never past the first free slot (its own last
 * slot + 1, a taken slot + 1, or the drain's head), and a batch's entries are inserted in
 * order, so the taken slots always form one run with no gaps: the drain reads from its head
 * by `_id` and stops at the first free slot.
 *
 * The state (in the same collection, `_id` `webhookInboxStateId(endpoint)`, so the drain reads
 * it with the entries in one `_id $in` and writes it with their deletions in one ordered bulk
 * write) is written only by the drain: its
 * head (every slot below it was taken in and is deleted or about to be) and whether the
 * workflow went idle. Entries are deleted only below a head written earlier (once the drain
 * that took them is in the workflow's history), so a publisher that reads the state after
 * its insert and finds its slot below the head knows it may have filled a slot already read
 * and emptied: it takes the entry back and claims again. One that finds the workflow idle sends the wake-up signal; the drain writes `idle`
 * and then reads its head slot once more, so an entry inserted before that write is seen by
 * the drain, and one inserted after it is followed by the publisher's read of `idle` and a
 * wake-up.
 */

export interface WebhookInboxEntryDoc {
  _id: string;
  endpoint_id: string;
  delivery_id: string;
  event_id: string;
  trigger: DeliveryTrigger;
  created_at: Date;
}

export interface WebhookInboxStateDoc {
  /** `webhookInboxStateId(endpoint)`. */
  _id: string;
  /** The next slot the drain reads. */
  head: number;
  /** The workflow sleeps until a signal (or a retry falls due): a publisher must wake it. */
  idle: boolean;
  /** Every slot below this was deleted (a new run starts deleting from here). */
  deleted: number;
  updated_at: Date;
}

export function webhookInbox(db: Db): Collection<WebhookInboxEntryDoc> {
  return db.collection<WebhookInboxEntryDoc>('webhook_inbox');
}

/** The state's view of the same collection. */
export function webhookInboxState(db: Db): Collection<WebhookInboxStateDoc> {
  return db.collection<WebhookInboxStateDoc>('webhook_inbox');
}

/** The state's `_id`: beside the endpoint's entries, never a slot's (those end in digits). */
export function webhookInboxStateId(endpointId: string): string {
  return `${endpointId}:state`;
}

/** A state saying "draining" that is older than this is not believed (src/webhooks/deliverySignals.ts). */
export const INBOX_STALE_MS = 90_000;

export function inboxEntryDoc(endpointId: string, seq: number, ref: DeliveryRef, now: Date): WebhookInboxEntryDoc {
  return { _id: webhookInboxEntryId(endpointId, seq), endpoint_id: endpointId, delivery_id: ref.deliveryId, event_id: ref.eventId, trigger: ref.trigger, created_at: now };
}

export interface InboxClaimer {
  /**
   * Parks the deliveries in the endpoint's inbox, in their order, and answers the state read
   * after the inserts (null: no drain of this release has run for the endpoint).
   */
  claim(endpointId: string, refs: readonly DeliveryRef[]): Promise<WebhookInboxStateDoc | null>;
}

/**
 * One per process: it remembers, per endpoint, the slot after the last one it saw taken, so
 * a process publishing steadily claims at the inbox's tail at the first try. Claims to one
 * endpoint from one process should not overlap (the delivery signaller sends one batch per
 * endpoint at a time); overlapping claims are still safe, only slower.
 */
export function createInboxClaimer(db: Db, now: () => Date = () => new Date()): InboxClaimer {
  const entries = webhookInbox(db);
  const states = webhookInboxState(db);
  const nextSlot = new Map<string, number>();

  return {
    async claim(endpointId, refs) {
      let next = nextSlot.get(endpointId) ?? (await states.findOne({ _id: webhookInboxStateId(endpointId) }))?.head ?? 0;
      let waiting = [...refs];
      for (;;) {
        const placed: { seq: number; ref: DeliveryRef }[] = [];
        while (waiting.length > 0) {
          // Kept as small as every bulk write (src/db/bulkWrite.ts).
          const batch = waiting.splice(0, BULK_WRITE_MAX);
          const at = now();
          const taken = await insertManyIfAbsent(entries, batch.map((ref, i) => inboxEntryDoc(endpointId, next + i, ref, at)));
          // Taken slots: those deliveries go on at the slots after this batch, still first.
          waiting = [...batch.filter((_, i) => taken.has(i)), ...waiting];
          for (const [i, ref] of batch.entries()) if (!taken.has(i)) placed.push({ seq: next + i, ref });
          next += batch.length;
        }
        const state = await states.findOne({ _id: webhookInboxStateId(endpointId) });
        const head = state?.head ?? 0;
        // Below the head: the drain may have read that slot before this insert, and deleted it.
        const behind = placed.filter((p) => p.seq < head);
        next = Math.max(next, head);
        if (behind.length === 0) {
          nextSlot.set(endpointId, next);
          return state;
        }
        for (const p of behind) await entries.deleteOne({ _id: webhookInboxEntryId(endpointId, p.seq) });
        waiting = behind.map((p) => p.ref);
      }
    },
  };
}

/**
 * What a drain leaves, in one ordered bulk write of two statements: the slots in
 * [deleteFrom, deleteTo) deleted (one `_id $in`; they are below a head written by an earlier
 * drain, so below every head a publisher can read), then the state when it changed.
 */
export async function settleInboxWrites(
  db: Db,
  endpointId: string,
  state: Omit<WebhookInboxStateDoc, '_id' | 'updated_at'> | null,
  deleteFrom: number,
  deleteTo: number,
  now: Date,
): Promise<void> {
  const ops: AnyBulkWriteOperation<WebhookInboxStateDoc>[] = [];
  if (deleteTo > deleteFrom) {
    const ids = Array.from({ length: deleteTo - deleteFrom }, (_, i) => webhookInboxEntryId(endpointId, deleteFrom + i));
    ops.push({ deleteMany: { filter: { _id: { $in: ids } } } });
  }
  if (state) ops.push({ replaceOne: { filter: { _id: webhookInboxStateId(endpointId) }, replacement: { ...state, updated_at: now }, upsert: true } });
  await bulkWriteInChunks(webhookInboxState(db), ops, { ordered: true });
}

export interface InboxRead {
  /** The deliveries taken, in slot order. */
  refs: DeliveryRef[];
  /** The next slot to read. */
  head: number;
  /** The read stopped at a free slot (rather than at the budget). */
  empty: boolean;
  /** The state as the drain found it. */
  state: WebhookInboxStateDoc | null;
}

/**
 * The drain's read: up to `budget` entries from slot `head`, one `_id $in` read (answered
 * from the `_id` index), taken up to the first free slot. A re-run of a drain (its worker
 * died) reads the entries its first run took, since they are deleted only once the
 * workflow's history holds that run, and takes them again: the drain recognises what it
 * already attempted from the delivery records. A free slot below the state's head cannot
 * stop a read (every slot there was taken); it is passed over, and the head never goes back.
 */
export async function readInbox(db: Db, endpointId: string, head: number, budget: number): Promise<InboxRead> {
  const ids = Array.from({ length: Math.max(0, budget) }, (_, i) => webhookInboxEntryId(endpointId, head + i));
  const docs = await findByIds(webhookInbox(db), [webhookInboxStateId(endpointId), ...ids]);
  const state = (docs.find((doc) => doc._id === webhookInboxStateId(endpointId)) as WebhookInboxStateDoc | undefined) ?? null;
  const passed = state?.head ?? 0;
  if (budget <= 0) return { refs: [], head: Math.max(head, passed), empty: false, state };
  const found = new Map(docs.map((doc) => [doc._id, doc]));
  const refs: DeliveryRef[] = [];
  let seq = head;
  for (; seq < head + budget; seq++) {
    const doc = found.get(webhookInboxEntryId(endpointId, seq));
    if (!doc) {
      if (seq < passed) continue;
      break;
    }
    refs.push({ deliveryId: doc.delivery_id, eventId: doc.event_id, trigger: doc.trigger });
  }
  return { refs, head: Math.max(seq, passed), empty: seq < head + budget, state };
}

/** Whether slot `seq` is taken (one point read by `_id`). */
export async function inboxSlotTaken(db: Db, endpointId: string, seq: number): Promise<boolean> {
  return (await webhookInbox(db).findOne({ _id: webhookInboxEntryId(endpointId, seq) }, { projection: { _id: 1 } })) !== null;
}
