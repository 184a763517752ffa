import type { Collection, Db } from 'mongodb';
import { backfillEntries, entryKey, entryKeyIn, movingEntries, writeEntries, type EntryDoc } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { callCollections, type CallDoc } from './callStore';
import type { CallOutcome } from './types';

/**
 * A workspace's calls in the lists the console filters by, newest first, as keyed entries
 * (src/db/keyedEntries.ts): to one number, `<tenant>|to:<E.164>|<call id>`, written with the
 * call; with one outcome, `<tenant>|outcome:<outcome>|<call id>`, written when the call ends.
 * Call ids are time-ordered, so the key's order is the recent calls' order, and the console's
 * number and outcome filters (and Find) read that list's calls only.
 */
export const callEntriesCollection = (db: Db): Collection<EntryDoc> => db.collection<EntryDoc>('call_entries');

/** The backfills' names (src/db/keyedEntries.ts `entriesComplete`). */
export const CALL_NUMBER_ENTRIES = 'call_number_entries';
export const CALL_OUTCOME_ENTRIES = 'call_outcome_entries';

/** The list of a workspace's calls to a number. */
export const callsToNumberList = (tenantId: string, to: string): string => entryKey(tenantId, `to:${to}`);

/** The list of a workspace's calls that ended with an outcome. */
export const callsWithOutcomeList = (tenantId: string, outcome: CallOutcome): string => entryKey(tenantId, `outcome:${outcome}`);

export const callNumberKey = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'to'>): string => entryKeyIn(callsToNumberList(call.tenant_id, call.to), call._id);

/** A live call has no outcome and is in no outcome list. */
export const callOutcomeKeys = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'outcome'>): string[] =>
  call.outcome === null ? [] : [entryKeyIn(callsWithOutcomeList(call.tenant_id, call.outcome), call._id)];

/** Written before the call itself (idempotent: a retried placement writes the same key). */
export async function writeCallEntries(db: Db, calls: readonly Pick<CallDoc, '_id' | 'tenant_id' | 'to'>[]): Promise<void> {
  await writeEntries(callEntriesCollection(db), calls.map(callNumberKey));
}

/**
 * The write that sets a call's outcome, with the call moved into that outcome's list around it
 * (`movingEntries`): the entry before the write, so the call is never missing from its list.
 * `write` answers whether it applied; when it did not (a retried or overtaken step), the call
 * as stored is read, so an entry of an outcome it does not have is deleted.
 */
export async function settingCallOutcome(db: Db, before: CallDoc, outcome: CallOutcome, write: () => Promise<boolean>): Promise<void> {
  await movingEntries({
    entries: callEntriesCollection(db),
    keysOf: callOutcomeKeys,
    before,
    next: { ...before, outcome },
    write: async () => ((await write()) ? { ...before, outcome } : await callCollections(db).calls.findOne({ _id: before._id }, { projection: { _id: 1, tenant_id: 1, outcome: 1 } })),
  });
}

/** The entries of calls written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillCallEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(db, CALL_NUMBER_ENTRIES, callCollections(db).calls, idRange('call'), { _id: 1, tenant_id: 1, to: 1 }, (calls) => writeCallEntries(db, calls), shouldStop);
}

/** The outcome entries of calls that ended before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillCallOutcomeEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(
    db,
    CALL_OUTCOME_ENTRIES,
    callCollections(db).calls,
    idRange('call'),
    { _id: 1, tenant_id: 1, outcome: 1 },
    (calls) => writeEntries(callEntriesCollection(db), calls.flatMap(callOutcomeKeys)),
    shouldStop,
  );
}
