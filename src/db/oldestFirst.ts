import type { Collection, Document, Filter } from 'mongodb';
import { BULK_WRITE_MAX } from './bulkWrite';
import { pauseUnlessStopped } from './sweepPause';

/**
 * Deletes what may go from the oldest end of a collection, reading at most
 * `batchSize × maxBatches` documents. Each batch is the first `batchSize` documents in
 * natural order, read with no filter and no sort: that is the one read FerretDB on SQLite
 * limits in SQL (`LIMIT` is pushed down only without a filter, sort or skip), so a batch
 * costs its own rows, not the collection's. Natural order is insertion order there (the
 * SQLite rowid) and close to it on MongoDB, so in collections written in time order the
 * oldest documents come first. Deletes go by `_id $in`, `BULK_WRITE_MAX` at a time (answered
 * from the index), with `pauseMs` after each so live requests are not queued behind a run of
 * deletes; `signal` ends the pass between them. For collections with time-ordered ids,
 * src/db/idRangeSweep.ts reads by `_id` range instead.
 *
 * A batch with a document that must stay ends the pass: the next pass starts at the front
 * again, so a long-lived document at the front costs a slot of every batch, never a scan.
 */
export async function sweepOldestFirst<T extends { _id: string }>(
  collection: Collection<T>,
  options: {
    /** Which documents may go; `projection` says which fields it reads. */
    mayGo: (doc: T) => boolean;
    projection?: Document;
    batchSize?: number;
    maxBatches?: number;
    pauseMs?: number;
    signal?: AbortSignal;
  },
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  let removed = 0;
  for (let batch = 0; batch < maxBatches && !options.signal?.aborted; batch++) {
    const docs = (await collection
      .find({}, { projection: options.projection, limit: batchSize })
      .toArray()) as unknown as T[];
    const doomed = docs.filter(options.mayGo);
    for (let start = 0; start < doomed.length && !options.signal?.aborted; start += BULK_WRITE_MAX) {
      const ids = doomed.slice(start, start + BULK_WRITE_MAX).map((doc) => doc._id);
      removed += (await collection.deleteMany({ _id: { $in: ids } } as Filter<T>)).deletedCount;
      await pauseUnlessStopped(options.pauseMs ?? 0, options.signal);
    }
    if (doomed.length < docs.length || docs.length < batchSize) break;
  }
  return removed;
}
