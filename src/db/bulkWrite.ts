import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Document } from 'mongodb';

/**
 * The most statements one bulk write command carries: every `bulkWrite` the project makes
 * goes through `bulkWriteInChunks`. FerretDB 1.24.2 as released kept one of its 100 pooled
 * SQLite connections per update statement until the whole command ended, so a command of 100
 * froze the database for every client; several smaller commands in flight at once (five of 40)
 * did the same. The pinned build closes each statement's query before the next
 * (scripts/patches/ferretdb-v1.24.2-statement-connections.patch); this bound is the second
 * line, and keeps a real MongoDB's commands small too (docs/decisions/platform.md "FerretDB's pool and
 * bulk writes").
 */
export const BULK_WRITE_MAX = 25;

/**
 * `collection.bulkWrite(ops, { ordered })` as commands of at most `BULK_WRITE_MAX` statements,
 * one after another (never several in flight from one caller). Ordered: stops at the first
 * command that fails, as one ordered command stops at its first failing statement. Unordered:
 * every command is sent, and the first failure is thrown after the last.
 */
export async function bulkWriteInChunks<T extends Document>(
  collection: Collection<T>,
  ops: readonly AnyBulkWriteOperation<T>[],
  { ordered }: { ordered: boolean },
): Promise<void> {
  let failure: MongoBulkWriteError | null = null;
  for (let start = 0; start < ops.length; start += BULK_WRITE_MAX) {
    try {
      await collection.bulkWrite(ops.slice(start, start + BULK_WRITE_MAX), { ordered });
    } catch (err) {
      if (ordered || !(err instanceof MongoBulkWriteError)) throw err;
      failure ??= err;
    }
  }
  if (failure) throw failure;
}
