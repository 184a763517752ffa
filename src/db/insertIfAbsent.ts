import { MongoBulkWriteError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';
import { isDuplicateKey, onlyDuplicateKeys } from './duplicateKey';

/**
 * Inserts the document unless one with its `_id` (or another unique key) exists; true when
 * this call inserted it. Used instead of an upsert with `$setOnInsert`, because FerretDB
 * 1.x drops top-level `null` and `[]` values from `$setOnInsert` (see docs/decisions/README.md).
 */
export async function insertIfAbsent<T extends Document>(
  collection: Collection<T>,
  doc: OptionalUnlessRequiredId<T>,
): Promise<boolean> {
  try {
    await collection.insertOne(doc);
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/**
 * One unordered `insertMany`: every document that can be inserted is. Answers, by position in
 * `docs`, the code of each document's write error (11000: a duplicate key), with the error
 * that carried them; any other failure is thrown.
 */
export async function insertManyUnordered<T extends Document>(
  collection: Collection<T>,
  docs: readonly OptionalUnlessRequiredId<T>[],
): Promise<{ failed: Map<number, number>; error: MongoBulkWriteError | null }> {
  const failed = new Map<number, number>();
  if (docs.length === 0) return { failed, error: null };
  try {
    await collection.insertMany([...docs], { ordered: false });
    return { failed, error: null };
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    for (const e of [err.writeErrors].flat()) failed.set(e.index, e.code);
    return { failed, error: err };
  }
}

/**
 * `insertIfAbsent` for many documents in one unordered `insertMany`: answers the positions
 * (in `docs`) of those refused as duplicates, stored before or earlier in `docs`, and left
 * as they are; every other document is inserted. Any other failure is thrown (some documents
 * may have been inserted: a repeat finds them).
 */
export async function insertManyIfAbsent<T extends Document>(collection: Collection<T>, docs: readonly OptionalUnlessRequiredId<T>[]): Promise<Set<number>> {
  const { failed, error } = await insertManyUnordered(collection, docs);
  if (error && !onlyDuplicateKeys(failed.values())) throw error;
  return new Set(failed.keys());
}
