import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { insertIfAbsent } from './insertIfAbsent';

/**
 * A workspace limit that must hold under parallel requests, as numbered places: place n is a
 * document whose `_id` is `<tenant>|<kind>|<n>`, taken by inserting it. FerretDB 1.x applies
 * neither conditional updates nor `$inc` atomically, but an insert of an existing `_id`
 * always fails, so two requests can never both take the last place (docs/decisions/README.md).
 */
export interface PlaceDoc extends Document {
  _id: string;
  tenant_id: string;
}

/**
 * Takes the first free of the workspace's `count` places with the document `make` builds; false
 * when all are taken. `holds` names a field and value that mark a place as already this
 * taker's (a retried taking): such a place is the answer, and no second one is taken.
 */
export async function takeNumberedPlace<T extends PlaceDoc>(
  places: Collection<T>,
  tenantId: string,
  kind: string,
  count: number,
  make: (id: string) => OptionalUnlessRequiredId<T>,
  holds?: { field: string; value: string },
): Promise<boolean> {
  const projection = holds ? { _id: 1, [holds.field]: 1 } : { _id: 1 };
  const docs = await places.find({ tenant_id: tenantId } as never).project<Record<string, unknown> & { _id: string }>(projection).toArray();
  if (holds && docs.some((d) => d[holds.field] === holds.value)) return true;
  const taken = new Set(docs.map((d) => d._id));
  for (let n = 0; n < count; n++) {
    const id = `${tenantId}|${kind}|${n}`;
    if (taken.has(id)) continue;
    if (await insertIfAbsent(places, make(id))) return true;
  }
  return false;
}
