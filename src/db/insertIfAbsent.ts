import { MongoBulkWriteError, MongoServerError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';

/**
 * Inserts the document unless one with its `_id` (or another unique key) exists; true when
 * this call inserted it. Used instead of an upsert with `$setOnInsert`, because FerretDB
 * 1.x drops top-level `null` and `[]` values from `$setOnInsert` (see docs/decisions.md).
 */
export async function insertIfAbsent<T extends Document>(
  collection: Collection<T>,
  doc: OptionalUnlessRequiredId<T>,
): Promise<boolean> {
  try {
    await collection.insertOne(doc);
    return true;
  } catch (err) {
    if (err instanceof MongoServerError && err.code === 11000) return false;
    throw err;
  }
}

/**
 * `insertIfAbsent` for many documents in one unordered `insertMany`: answers the positions
 * (in `docs`) of those refused as duplicates, stored before or earlier in `docs`, and left
 * as they are; every other document is inserted. Any other failure is thrown (some documents
 * may have been inserted: a repeat finds them).
 */
export async function insertManyIfAbsent<T extends Document>(collection: Collection<T>, docs: readonly OptionalUnlessRequiredId<T>[]): Promise<Set<number>> {
  const refused = new Set<number>();
  if (docs.length === 0) return refused;
  try {
    await collection.insertMany([...docs], { ordered: false });
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const writeErrors = [err.writeErrors].flat();
    if (writeErrors.some((e) => e.code !== 11000)) throw err;
    for (const e of writeErrors) refused.add(e.index);
  }
  return refused;
}
