import type { Collection, Filter, FindOptions, WithId } from 'mongodb';

/**
 * The most ids one `_id: {$in: [...]}` read carries. The pinned FerretDB answers an `$in` of
 * up to this many string or ObjectId ids (and nothing else beside `$in` in that `_id` value)
 * from its `_id_` index; a longer list would scan the collection (scripts/patches,
 * docs/decisions/platform.md "FerretDB's `_id` index (patched)").
 */
export const ID_IN_MAX = 1000;

/**
 * The documents whose string `_id` is listed, each once, one `_id: {$in}` read per
 * `ID_IN_MAX` distinct ids instead of a point read per id; ids no document has are simply
 * absent, and no order is promised (sort what you need). An empty list reads nothing:
 * FerretDB would scan for `{$in: []}`.
 */
export async function findByIds<T extends { _id: string }>(
  collection: Collection<T>,
  ids: readonly string[],
  options?: FindOptions,
): Promise<WithId<T>[]> {
  const distinct = [...new Set(ids)];
  const found: WithId<T>[] = [];
  for (let start = 0; start < distinct.length; start += ID_IN_MAX) {
    const filter = { _id: { $in: distinct.slice(start, start + ID_IN_MAX) } } as Filter<T>;
    found.push(...(await collection.find(filter, options).toArray()));
  }
  return found;
}
