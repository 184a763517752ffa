import type { Collection, Db } from 'mongodb';
import { backfillEntries, entriesComplete, entryKey, entryKeyIn, isEntryKeyPart, movingEntries, timeKey, writeEntries, type EntryDoc } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { callCollections, type CallDoc } from './callStore';
import type { CallOutcome, CallStatus } from './types';

/**
 * A workspace's calls in the lists the console filters by, as keyed entries
 * (src/db/keyedEntries.ts). Written with the call, never moving:
 * - to one number, `<tenant>|to:<E.164>|<call id>`;
 * - placed by one campaign, `<tenant>|campaign:<campaign id>|<call id>` (its `metadata.campaign_id`);
 * - every call by creation time, `<tenant>|created|<created_at, 12 hex ms>|<call id>` (a span of
 *   days: a call's id time can come before its `created_at`, a campaign's call id being chosen
 *   before the attempt that places it, so only this key's time bounds a span).
 * Moving once, as the call ends (`endingCall`):
 * - live, `<tenant>|live|<call id>`, from its first write until it ends (the live statuses move in
 *   seconds; a workspace has a handful of live calls, read and checked for the status asked);
 * - then with its outcome, `<tenant>|outcome:<outcome>|<call id>`, and an ended status,
 *   `<tenant>|status:<completed|failed>|<call id>`.
 * Call ids are time-ordered, so the id-keyed lists are in the recent calls' order, and the
 * console's filters (and Find) read that list's calls only.
 */
export const callEntriesCollection = (db: Db): Collection<EntryDoc> => db.collection<EntryDoc>('call_entries');

/** The backfills' names (src/db/keyedEntries.ts `entriesComplete`): one walk writes those not complete (`backfillCallEntries`). */
export const CALL_NUMBER_ENTRIES = 'call_number_entries';
export const CALL_END_ENTRIES = 'call_end_entries';
/** The live, campaign and creation-time lists. */
export const CALL_FILTER_ENTRIES = 'call_filter_entries';

/** The list of a workspace's calls to a number. */
export const callsToNumberList = (tenantId: string, to: string): string => entryKey(tenantId, `to:${to}`);

/** The list of a workspace's calls that ended with an outcome. */
export const callsWithOutcomeList = (tenantId: string, outcome: CallOutcome): string => entryKey(tenantId, `outcome:${outcome}`);

/** The statuses a call ends in, set with its outcome; the others are a live call's, which moves through them in seconds. */
export const ENDED_STATUSES: readonly CallStatus[] = ['completed', 'failed'];

export const isLiveStatus = (status: CallStatus): boolean => !ENDED_STATUSES.includes(status);

/** The list of a workspace's calls that ended in a status (`ENDED_STATUSES`). */
export const callsEndedAsList = (tenantId: string, status: CallStatus): string => entryKey(tenantId, `status:${status}`);

/** The list of a workspace's live calls, whatever their live status. */
export const liveCallsList = (tenantId: string): string => entryKey(tenantId, 'live');

/** The list of the calls a campaign placed. */
export const campaignCallsList = (tenantId: string, campaignId: string): string => entryKey(tenantId, `campaign:${campaignId}`);

/** The list of a workspace's calls by creation time, newest last. */
export const callsByCreationList = (tenantId: string): string => entryKey(tenantId, 'created');

/** Where a call is in the creation list (after its prefix): also where a page ending on it goes on from. */
export const creationPosition = (createdAt: Date, callId: string): string => entryKey(timeKey(createdAt), callId);

/** A position in the creation list below every call created at or after `at` (a walk's bound). */
export const creationBound = (at: Date): string => timeKey(at);

/**
 * The campaign a call's metadata names, when it can be a key's part: a campaign writes its id
 * there (src/campaigns/voice/step.ts); a caller's own `campaign_id` of another shape is never
 * asked for (the console takes campaign ids only) and gets no entry.
 */
function campaignOf(call: Pick<CallDoc, 'metadata'>): string | null {
  const value = call.metadata?.campaign_id;
  return typeof value === 'string' && value.length <= 64 && isEntryKeyPart(value) ? value : null;
}

type Placed = Pick<CallDoc, '_id' | 'tenant_id' | 'to' | 'status' | 'metadata' | 'created_at'>;

export const callNumberKey = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'to'>): string => entryKeyIn(callsToNumberList(call.tenant_id, call.to), call._id);

/** An ended call's outcome and status keys; a live call (no outcome yet) is in none of these lists. */
export const callEndKeys = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'outcome' | 'status'>): string[] =>
  call.outcome === null
    ? []
    : [
        entryKeyIn(callsWithOutcomeList(call.tenant_id, call.outcome), call._id),
        ...(ENDED_STATUSES.includes(call.status) ? [entryKeyIn(callsEndedAsList(call.tenant_id, call.status), call._id)] : []),
      ];

/** The keys a call's state gives it: the live list's while live, its end's once ended. */
const callStateKeys = (call: Pick<CallDoc, '_id' | 'tenant_id' | 'outcome' | 'status'>): string[] =>
  isLiveStatus(call.status) ? [entryKeyIn(liveCallsList(call.tenant_id), call._id)] : callEndKeys(call);

/** The creation-time, campaign and live keys (`CALL_FILTER_ENTRIES`). */
export const callFilterKeys = (call: Placed): string[] => {
  const campaign = campaignOf(call);
  return [
    entryKeyIn(callsByCreationList(call.tenant_id), timeKey(call.created_at), call._id),
    ...(campaign ? [entryKeyIn(campaignCallsList(call.tenant_id, campaign), call._id)] : []),
    ...(isLiveStatus(call.status) ? [entryKeyIn(liveCallsList(call.tenant_id), call._id)] : []),
  ];
};

/** Written before the call itself, in one insert (idempotent: a retried placement writes the same keys). */
export async function writeCallEntries(db: Db, calls: readonly Placed[]): Promise<void> {
  await writeEntries(callEntriesCollection(db), calls.flatMap((call) => [callNumberKey(call), ...callFilterKeys(call)]));
}

/**
 * The write that ends a call, with the call moved from the live list into its outcome's and
 * status's lists around it (`movingEntries`): the entries (one insert) before the write, so the
 * call is never missing from its lists, the live key deleted after. `write` answers whether it
 * applied; when it did not (a retried or overtaken step), the call as stored is read, so an
 * entry of an end it does not have is deleted. `before` is taken as live whatever it says: a
 * retry of an end whose first try died before the delete removes the live key still there.
 */
export async function endingCall(db: Db, before: CallDoc, end: Pick<CallDoc, 'outcome' | 'status'>, write: () => Promise<boolean>): Promise<void> {
  const next = { ...before, outcome: end.outcome, status: end.status };
  const live = isLiveStatus(before.status) ? before : { ...before, outcome: null, status: 'in_progress' as const };
  await movingEntries({
    entries: callEntriesCollection(db),
    keysOf: callStateKeys,
    before: live,
    next,
    write: async () => ((await write()) ? next : await callCollections(db).calls.findOne({ _id: before._id }, { projection: { _id: 1, tenant_id: 1, outcome: 1, status: 1 } })),
  });
}

/**
 * The entries of calls written before they existed, in one walk over the calls for every family
 * not yet complete; the worker runs it at start (src/main/worker.ts). A call that ends while the
 * walk passes it may get its live key back after `endingCall` removed it: the list's reader
 * removes a live key of an ended call it meets (src/calls/callList.ts).
 */
export async function backfillCallEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  const families: [string, (call: CallDoc) => string[]][] = [
    [CALL_NUMBER_ENTRIES, (call) => [callNumberKey(call)]],
    [CALL_END_ENTRIES, callEndKeys],
    [CALL_FILTER_ENTRIES, callFilterKeys],
  ];
  const due: typeof families = [];
  for (const family of families) if (!(await entriesComplete(db, family[0]))) due.push(family);
  if (due.length === 0) return;
  await backfillEntries(
    db,
    due.map(([name]) => name),
    callCollections(db).calls,
    idRange('call'),
    { _id: 1, tenant_id: 1, to: 1, outcome: 1, status: 1, metadata: 1, created_at: 1 },
    (calls) => writeEntries(callEntriesCollection(db), calls.flatMap((call) => due.flatMap(([, keysOf]) => keysOf(call)))),
    shouldStop,
  );
}
