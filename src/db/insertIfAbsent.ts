import { MongoServerError, type Collection, type Document, type OptionalUnlessRequiredId } from 'mongodb';

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
