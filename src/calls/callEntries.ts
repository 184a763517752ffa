import type { Collection, Db } from 'mongodb';
import { backfillEntries, entryKey, entryKeyIn, writeEntries, type EntryDoc } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { callCollections, type CallDoc } from './callStore';

/**
 * A workspace's calls to one number, newest first, as keyed entries (src/db/keyedEntries.ts):
 * `<tenant>|to:<E.164>|<call id>`. Call ids are time-ordered, so the key's order is the recent
 * calls' order, and the console's number filter and its Find read that number's calls only.
 */
export const callEntriesCollection = (db: Db): Collection<EntryDoc> => db.collection<EntryDoc>('call_entries');

/** The backfill's name (src/db/keyedEntries.ts `entriesComplete`). */
export const CALL_NUMBER_ENTRIES = 'call_number_entries';

/** The list of a workspace's calls to a number. */
export const callsToNumberList = (tenantId: string, to: string): string => entryKey(tenantId, `to:${to}`);

export const callNumberKey = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'to'>): string => entryKeyIn(callsToNumberList(call.tenant_id, call.to), call._id);

/** Written before the call itself (idempotent: a retried placement writes the same key). */
export async function writeCallEntries(db: Db, calls: readonly Pick<CallDoc, '_id' | 'tenant_id' | 'to'>[]): Promise<void> {
  await writeEntries(callEntriesCollection(db), calls.map(callNumberKey));
}

/** The entries of calls written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillCallEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(db, CALL_NUMBER_ENTRIES, callCollections(db).calls, idRange('call'), { _id: 1, tenant_id: 1, to: 1 }, (calls) => writeCallEntries(db, calls), shouldStop);
}
