import type { Collection, Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { insertManyUnordered } from '../db/insertIfAbsent';
import type { EventPublisher } from '../events';
import { applyStatusesOfMessages, type StatusReport } from './deliveryStatus';
import { STATUS_RANK, outboundMessagesCollection, type DeliveryStatus } from './outboundMessages';
import { onlyDuplicateKeys } from '../db/duplicateKey';

/**
 * Statuses the provider reported before this service recorded the message they name. The
 * Cloud API posts `sent` within a fraction of a second of accepting a message, often before
 * the send has written its outbound message, and never posts it again: answered as skipped,
 * it was lost, and the message (and its campaign recipient) stayed `sent` for ever.
 *
 * An early status is parked here, one document per message and status
 * (`_id` = `<provider message id>|<status>`: a unique insert, so a redelivery parks nothing
 * twice), and applied as soon as the message exists. Both sides write, then read: the webhook
 * parks, then looks for the message; the send writes its outbound message, then looks for
 * parked statuses (`applyParkedStatuses`). Whichever comes second sees the other, and applying
 * twice is harmless (statuses only move forward; each event is stored once). Reading a
 * message's parked statuses is one `_id $in` of the four names a status can have, never a
 * range or a scan.
 *
 * A parked status whose message never appears (one sent by another tool on the same number,
 * or by a send that never recorded its answer) is deleted a day later by the worker's
 * retention pass, which also applies any whose message has appeared meanwhile (a send whose
 * process died between its outbound message and applying them).
 */
export interface ParkedStatusDoc {
  /** `<provider message id>|<status>`. */
  _id: string;
  message_id: string;
  status: DeliveryStatus;
  at: Date;
  error: StatusReport['error'] | null;
  parked_at: Date;
}

export function parkedStatusesCollection(db: Db): Collection<ParkedStatusDoc> {
  return db.collection<ParkedStatusDoc>('parked_statuses');
}

/** How long a parked status waits for its message. */
export const PARKED_STATUS_TTL_MS = 24 * 60 * 60 * 1000;

const STATUSES = Object.keys(STATUS_RANK) as DeliveryStatus[];
const parkedId = (messageId: string, status: DeliveryStatus) => `${messageId}|${status}`;

type Deps = { db: Db; events: EventPublisher };

/**
 * Parks one message's statuses that found no message, then applies them if the message has
 * appeared meanwhile. Answers whether they were applied after all.
 */
export async function parkStatuses(deps: Deps, messageId: string, reports: readonly StatusReport[], now: Date): Promise<boolean> {
  const docs = reports.map((report) => ({
    _id: parkedId(messageId, report.status),
    message_id: messageId,
    status: report.status,
    at: report.at,
    error: report.error ?? null,
    parked_at: now,
  }));
  const { failed, error } = await insertManyUnordered(parkedStatusesCollection(deps.db), docs);
  // A duplicate is the same status parked by an earlier delivery.
  if (error && !onlyDuplicateKeys(failed.values())) throw error;
  const [applied] = await applyParkedStatuses(deps, [messageId]);
  return applied!;
}

/**
 * Applies the statuses parked for these messages, each message's in the order they happened
 * (the funnel's order, then time), and removes them once applied. Answers, per message id,
 * whether it had parked statuses that are now applied; a message still unknown keeps them.
 */
export async function applyParkedStatuses(deps: Deps, messageIds: readonly string[]): Promise<boolean[]> {
  if (messageIds.length === 0) return [];
  const parked = await findByIds(
    parkedStatusesCollection(deps.db),
    messageIds.flatMap((id) => STATUSES.map((status) => parkedId(id, status))),
  );
  if (parked.length === 0) return messageIds.map(() => false);
  const byMessage = new Map<string, ParkedStatusDoc[]>();
  for (const doc of parked) byMessage.set(doc.message_id, [...(byMessage.get(doc.message_id) ?? []), doc]);
  const inputs = [...byMessage.entries()].map(([messageId, docs]) => ({
    tenantId: null,
    messageId,
    statuses: docs
      .sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || a.at.getTime() - b.at.getTime())
      .map((doc) => ({ status: doc.status, at: doc.at, error: doc.error })),
  }));
  const applied = await applyStatusesOfMessages(deps, inputs);
  const done = inputs.filter((_input, n) => applied[n]).map((input) => input.messageId);
  await deleteByIds(deps.db, done.flatMap((id) => byMessage.get(id)!.map((doc) => doc._id)));
  const appliedIds = new Set(done);
  return messageIds.map((id) => appliedIds.has(id));
}

/** Deletes by `_id` equality, the one filter FerretDB serves from its index. */
async function deleteByIds(db: Db, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((_id) => parkedStatusesCollection(db).deleteOne({ _id })));
}

/**
 * The worker's retention pass over parked statuses (src/main/worker.ts registers it with the
 * event retention sweeper): applies those whose message now exists, deletes those older than
 * `PARKED_STATUS_TTL_MS`. Reads the collection from its oldest end in bounded batches with no
 * filter (the read FerretDB limits in SQL; src/db/oldestFirst.ts); the collection holds only
 * statuses still waiting, normally for less than a second.
 */
export async function settleParkedStatuses(options: Deps & { now?: () => Date; batchSize?: number; maxBatches?: number }): Promise<{ applied: number; expired: number }> {
  const collection = parkedStatusesCollection(options.db);
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  const cutoff = (options.now ?? (() => new Date()))().getTime() - PARKED_STATUS_TTL_MS;
  const settled = { applied: 0, expired: 0 };
  for (let batch = 0; batch < maxBatches; batch++) {
    const docs = await collection.find({}, { limit: batchSize }).toArray();
    const ids = [...new Set(docs.map((doc) => doc.message_id))];
    const known = new Set((await findByIds(outboundMessagesCollection(options.db), ids, { projection: { _id: 1 } })).map((m) => m._id));
    const applied = await applyParkedStatuses(options, [...known]);
    const appliedIds = new Set([...known].filter((_id, n) => applied[n]));
    const nowApplied = docs.filter((doc) => appliedIds.has(doc.message_id)).length;
    const expired = docs.filter((doc) => !appliedIds.has(doc.message_id) && doc.parked_at.getTime() < cutoff).map((doc) => doc._id);
    await deleteByIds(options.db, expired);
    settled.applied += nowApplied;
    settled.expired += expired.length;
    // A status still waiting at the front ends the pass: the next starts at the front again.
    if (docs.length < batchSize || nowApplied + expired.length < docs.length) break;
  }
  return settled;
}
