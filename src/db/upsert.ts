import {
  MongoBulkWriteError,
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
  type Filter,
  type UpdateFilter,
  type WithoutId,
} from 'mongodb';
import { BULK_WRITE_MAX, bulkWriteInChunks } from './bulkWrite';
import { isDuplicateKey, onlyDuplicateKeys } from './duplicateKey';

/**
 * Upserts by `_id` that two writers may make at once for a document that does not exist yet.
 * Both find none and both insert; the later insert fails with a duplicate key (E11000). MongoDB
 * 4.2+ repeats such an upsert itself when its filter is an equality on the unique key; FerretDB
 * 1.x does not. These do what the server does: the same write once more, which finds the
 * document now and updates it (docs/decisions/platform.md "Upserts of a new `_id`").
 * For `$set`, `$max`, `$addToSet`, `$setOnInsert` and replacements that is the server's result
 * exactly; an `$inc` counts once, as its first try wrote nothing.
 */

async function onceMoreOnDuplicateKey<R>(write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return write();
  }
}

/** `updateOne(filter, update, { upsert: true })`, repeated once when a parallel upsert inserted first. */
export async function upsertOne<T extends Document>(collection: Collection<T>, filter: Filter<T>, update: UpdateFilter<T>): Promise<void> {
  await onceMoreOnDuplicateKey(() => collection.updateOne(filter, update, { upsert: true }));
}

/** `replaceOne(filter, replacement, { upsert: true })`, repeated once when a parallel upsert inserted first. */
export async function replaceUpserting<T extends Document>(collection: Collection<T>, filter: Filter<T>, replacement: WithoutId<T>): Promise<void> {
  await onceMoreOnDuplicateKey(() => collection.replaceOne(filter, replacement, { upsert: true }));
}

/**
 * An unordered `bulkWriteInChunks` of upserts: the statements refused with a duplicate key are
 * written once more (their documents exist now), in one more unordered write after the others.
 * Any other failure is thrown after every command was sent, as `bulkWriteInChunks` does.
 */
export async function bulkUpsertInChunks<T extends Document>(collection: Collection<T>, ops: readonly AnyBulkWriteOperation<T>[]): Promise<void> {
  let failure: unknown = null;
  const again: AnyBulkWriteOperation<T>[] = [];
  for (let start = 0; start < ops.length; start += BULK_WRITE_MAX) {
    const chunk = ops.slice(start, start + BULK_WRITE_MAX);
    try {
      await collection.bulkWrite(chunk, { ordered: false });
    } catch (err) {
      const refused = err instanceof MongoBulkWriteError ? [err.writeErrors].flat() : [];
      if (refused.length > 0 && onlyDuplicateKeys(refused.map((e) => e.code))) again.push(...refused.map((e) => chunk[e.index]!));
      else failure ??= err;
    }
  }
  if (again.length > 0) {
    try {
      await bulkWriteInChunks(collection, again, { ordered: false });
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure) throw failure;
}
