import type { Collection, Db, Document, Filter } from 'mongodb';
import { BULK_WRITE_MAX } from './bulkWrite';
import { pauseUnlessStopped } from './sweepPause';
import { upsertOne } from './upsert';

/**
 * How a retention sweep shares the database with live traffic: at most `BULK_WRITE_MAX`
 * documents a batch, a pause after each batch (so a read arriving meanwhile waits for one
 * small command, never a long run of them), and a bound on the batches of one pass (a
 * backlog, such as a first pass over a year, is worked off over several passes).
 */
export interface SweepPace {
  /** Documents read and written per batch; at most (and by default) BULK_WRITE_MAX. */
  batchSize?: number;
  /** Batches per pass at most. */
  maxBatches?: number;
  /** The pause after each batch. */
  pauseMs?: number;
  /** Ends the pass between batches, cutting a pause short (the process is stopping). */
  signal?: AbortSignal;
}

/** A retention pass's defaults: 25 × 200 = 5,000 documents a pass at most, 50 ms between batches. */
export const SWEEP_MAX_BATCHES = 200;
export const SWEEP_PAUSE_MS = 50;

/**
 * How far one filtered batch may walk: an hour of ids. A filter that keeps most documents (old
 * calls without a transcript) would otherwise walk every id up to the cutoff in one command,
 * a long read that live requests would queue behind; a window bounds each command to an hour's
 * documents, and the gaps between documents are jumped with one unfiltered read of the next id.
 */
export const SWEEP_WINDOW_MS = 3_600_000;

/** Where a sweep's previous pass ended: the last id it handled (a document per sweep). */
interface SweepMarkDoc {
  _id: string;
  after: string;
  updated_at: Date;
}

function sweepMarks(db: Db): Collection<SweepMarkDoc> {
  return db.collection<SweepMarkDoc>('retention_marks');
}

/**
 * The ids `newId(prefix, at)` (or any `<prefix>_<12 hex of ms>…` id) makes before `before`, as a
 * string range: above `<prefix>_` and below `<prefix>_` followed by `before`'s 12 hex digits.
 */
export function idsBefore(prefix: string, before: Date): { $gt: string; $lt: string } {
  return { $gt: `${prefix}_`, $lt: idAt(prefix, before.getTime()) };
}

const idAt = (prefix: string, ms: number): string => `${prefix}_${ms.toString(16).padStart(12, '0')}`;
const msOf = (prefix: string, id: string): number => parseInt(id.slice(prefix.length + 1, prefix.length + 13), 16);

/**
 * Applies `act` to the documents whose time-ordered `_id` (`<prefix>_<ms hex>…`,
 * src/domain/ids.ts) was made before `before` and that match `filter`, oldest first, a batch at
 * a time (SweepPace). Every read is an `_id` range sorted on `_id` alone: FerretDB's patched
 * SQLite build walks its `_id` index from the range's start and stops at the batch's end
 * (docs/decisions/platform.md, "FerretDB's `_id` ranges"), so a batch reads its own rows (plus
 * those `filter` skips), never the collection; on MongoDB the same range is the `_id` index's.
 *
 * `mark` names the sweep's progress record: a pass starts after the last id the previous one
 * handled, so documents the filter keeps (an old call with no transcript, a turn that is not a
 * trail row) are walked once, not at every pass. A document written later with an id below the
 * mark is not seen; ids are made from their write's time, and the cutoffs are days old.
 * `act` gets each batch's ids, and its documents with `fields` besides `_id` (read by the same
 * walk, so an act that needs them reads nothing more); it must be idempotent (two workers may
 * sweep at once).
 */
export async function sweepIdRange<T extends { _id: string }, K extends keyof T & string = never>(
  db: Db,
  collection: Collection<T>,
  options: SweepPace & {
    mark: string;
    prefix: string;
    before: Date;
    filter?: Filter<T>;
    fields?: readonly K[];
    act: (ids: string[], docs: Pick<T, '_id' | K>[]) => Promise<number>;
  },
): Promise<number> {
  const batchSize = Math.min(options.batchSize ?? BULK_WRITE_MAX, BULK_WRITE_MAX);
  const maxBatches = options.maxBatches ?? SWEEP_MAX_BATCHES;
  const pauseMs = options.pauseMs ?? SWEEP_PAUSE_MS;
  const range = idsBefore(options.prefix, options.before);
  const marks = sweepMarks(db);
  const mark = await marks.findOne({ _id: options.mark });
  let after = mark && mark.after > range.$gt ? mark.after : range.$gt;
  let done = 0;
  const firstIds = (filter: Filter<T>, limit: number, fields: readonly K[] = []) =>
    collection.find(filter, { projection: Object.fromEntries(['_id', ...fields].map((f) => [f, 1])) as Document, sort: { _id: 1 }, limit }).toArray() as unknown as Promise<Pick<T, '_id' | K>[]>;
  for (let batch = 0; batch < maxBatches && after < range.$lt && !options.signal?.aborted; batch++) {
    let until = range.$lt;
    if (options.filter) {
      const [next] = await firstIds({ _id: { $gt: after, $lt: range.$lt } } as Filter<T>, 1);
      if (next) {
        const at = msOf(options.prefix, next._id);
        const windowEnd = Number.isNaN(at) ? until : idAt(options.prefix, at + SWEEP_WINDOW_MS);
        if (windowEnd < until) until = windowEnd;
      } else {
        until = after;
      }
    }
    const docs = until > after ? await firstIds({ ...options.filter, _id: { $gt: after, $lt: until } } as Filter<T>, batchSize, options.fields) : [];
    if (docs.length > 0) done += await options.act(docs.map((doc) => doc._id), docs);
    // A short batch walked its whole window: the next batch starts at the window's end.
    after = docs.length < batchSize ? (until > after ? until : range.$lt) : docs[docs.length - 1]!._id;
    await upsertOne(marks, { _id: options.mark }, { $set: { after, updated_at: new Date() } });
    if (docs.length < batchSize && after >= range.$lt) break;
    await pauseUnlessStopped(pauseMs, options.signal);
  }
  return done;
}

/** `sweepIdRange`'s usual act: delete the batch by `_id $in` (one command, served by the `_id` index). */
export function deleteIds<T extends { _id: string }>(collection: Collection<T>): (ids: string[]) => Promise<number> {
  return async (ids) => (await collection.deleteMany({ _id: { $in: ids } } as Filter<T>)).deletedCount;
}
