import type { Collection, Db } from 'mongodb';
import { backfillEntries, entryKey, entryKeyIn, movingEntries, writeEntries, type EntryDoc } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { callCollections, type CallDoc } from './callStore';
import type { CallOutcome, CallStatus } from './types';

/**
 * A workspace's calls in the lists the console filters by, newest first, as keyed entries
 * (src/db/keyedEntries.ts): to one number, `<tenant>|to:<E.164>|<call id>`, written with the
 * call; with one outcome, `<tenant>|outcome:<outcome>|<call id>`, and with an ended status,
 * `<tenant>|status:<completed|failed>|<call id>`, written when the call ends. Call ids are
 * time-ordered, so the key's order is the recent calls' order, and the console's number,
 * outcome and ended-status filters (and Find) read that list's calls only.
 */
export const callEntriesCollection = (db: Db): Collection<EntryDoc> => db.collection<EntryDoc>('call_entries');

/** The backfills' names (src/db/keyedEntries.ts `entriesComplete`). */
export const CALL_NUMBER_ENTRIES = 'call_number_entries';
export const CALL_END_ENTRIES = 'call_end_entries';

/** The list of a workspace's calls to a number. */
export const callsToNumberList = (tenantId: string, to: string): string => entryKey(tenantId, `to:${to}`);

/** The list of a workspace's calls that ended with an outcome. */
export const callsWithOutcomeList = (tenantId: string, outcome: CallOutcome): string => entryKey(tenantId, `outcome:${outcome}`);

/** The statuses a call ends in, set with its outcome; the others are a live call's, which moves through them in seconds. */
export const ENDED_STATUSES: readonly CallStatus[] = ['completed', 'failed'];

/** The list of a workspace's calls that ended in a status (`ENDED_STATUSES`). */
export const callsEndedAsList = (tenantId: string, status: CallStatus): string => entryKey(tenantId, `status:${status}`);

export const callNumberKey = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'to'>): string => entryKeyIn(callsToNumberList(call.tenant_id, call.to), call._id);

/** An ended call's outcome and status keys; a live call (no outcome yet) is in none of these lists. */
export const callEndKeys = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'outcome' | 'status'>): string[] =>
  call.outcome === null
    ? []
    : [
        entryKeyIn(callsWithOutcomeList(call.tenant_id, call.outcome), call._id),
        ...(ENDED_STATUSES.includes(call.status) ? [entryKeyIn(callsEndedAsList(call.tenant_id, call.status), call._id)] : []),
      ];

/** Written before the call itself (idempotent: a retried placement writes the same key). */
export async function writeCallEntries(db: Db, calls: readonly Pick<CallDoc, '_id' | 'tenant_id' | 'to'>[]): Promise<void> {
  await writeEntries(callEntriesCollection(db), calls.map(callNumberKey));
}

/**
 * The write that ends a call, with the call moved into its outcome's and status's lists around
 * it (`movingEntries`): the entries (one insert) before the write, so the call is never missing
 * from its lists. `write` answers whether it applied; when it did not (a retried or overtaken
 * step), the call as stored is read, so an entry of an end it does not have is deleted.
 */
export async function endingCall(db: Db, before: CallDoc, end: Pick<CallDoc, 'outcome' | 'status'>, write: () => Promise<boolean>): Promise<void> {
  const next = { ...before, outcome: end.outcome, status: end.status };
  await movingEntries({
    entries: callEntriesCollection(db),
    keysOf: callEndKeys,
    before,
    next,
    write: async () => ((await write()) ? next : await callCollections(db).calls.findOne({ _id: before._id }, { projection: { _id: 1, tenant_id: 1, outcome: 1, status: 1 } })),
  });
}

/** The entries of calls written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillCallEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(db, CALL_NUMBER_ENTRIES, callCollections(db).calls, idRange('call'), { _id: 1, tenant_id: 1, to: 1 }, (calls) => writeCallEntries(db, calls), shouldStop);
}

/** The outcome and status entries of calls that ended before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillCallEndEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(
    db,
    CALL_END_ENTRIES,
    callCollections(db).calls,
    idRange('call'),
    { _id: 1, tenant_id: 1, outcome: 1, status: 1 },
    (calls) => writeEntries(callEntriesCollection(db), calls.flatMap(callEndKeys)),
    shouldStop,
  );
}
