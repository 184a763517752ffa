import type { Db, Filter } from 'mongodb';
import { callCollections, type CallDoc } from './callStore';
import type { CallOutcome, CallStatus } from './types';
import { idRange } from '../domain/ids';
import { entriesComplete, readThroughEntries } from '../db/keyedEntries';
import {
  CALL_END_ENTRIES,
  CALL_FILTER_ENTRIES,
  CALL_NUMBER_ENTRIES,
  callEntriesCollection,
  callsByCreationList,
  callsEndedAsList,
  callsToNumberList,
  callsWithOutcomeList,
  campaignCallsList,
  creationBound,
  creationPosition,
  isLiveStatus,
  liveCallsList,
} from './callEntries';

/**
 * The console's recent calls: a workspace's calls newest first, optionally one status, one
 * outcome, one number, one campaign, created within a span. Newest first is `_id` descending (call ids are
 * time-ordered, src/domain/ids.ts), the one order the calls' `tenant_newest` index serves on
 * MongoDB and, paged by `_id` below the last one shown, a page never repeats or skips a call
 * while new ones arrive at the top. A span of days alone is read in `created_at` order (newest
 * first, then `_id`), the order its list is kept in; a page goes on below the last one's.
 */

/** A page's bounds; one place owns them. */
export const CALL_LIST_LIMITS = { defaultLimit: 25, maxLimit: 100 } as const;

export interface CallListFilter {
  status?: CallStatus;
  outcome?: CallOutcome;
  /** E.164. */
  to?: string;
  /** A campaign's calls: the campaign writes its id into each call's metadata (src/campaigns/voice/step.ts). */
  campaignId?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
}

/** Whether a call passes every filter (read through one list's entries, the rest, and the list's own, checked here). */
function passes(call: CallDoc, tenantId: string, filter: CallListFilter): boolean {
  return (
    call.tenant_id === tenantId &&
    (!filter.to || call.to === filter.to) &&
    (!filter.status || call.status === filter.status) &&
    (!filter.outcome || call.outcome === filter.outcome) &&
    (!filter.campaignId || call.metadata?.campaign_id === filter.campaignId) &&
    (!filter.createdFrom || call.created_at >= filter.createdFrom) &&
    (!filter.createdBefore || call.created_at < filter.createdBefore)
  );
}

/** A list a page reads through (src/calls/callEntries.ts): in call-id order, or in creation order (a span's). */
interface Walked {
  prefix: string;
  byCreation: boolean;
}

/**
 * The entries list a filtered page walks, the narrowest the filter names whose entries are
 * complete: a number's calls are fewer than a campaign's, a campaign's than an outcome's, an
 * outcome's than an ended status's; a live status reads the live calls (a handful), days alone
 * the creation list between their bounds. Days with another list are checked on its calls.
 * None (no filter, or entries not complete yet): the calls are read by an `_id` range and
 * filtered. `empty`: no call can pass (a live status has no outcome).
 */
async function listOf(db: Db, tenantId: string, filter: CallListFilter): Promise<Walked | 'empty' | null> {
  const live = filter.status !== undefined && isLiveStatus(filter.status);
  if (live && filter.outcome) return 'empty';
  const byId = (prefix: string): Walked => ({ prefix, byCreation: false });
  if (filter.to && (await entriesComplete(db, CALL_NUMBER_ENTRIES))) return byId(callsToNumberList(tenantId, filter.to));
  // Asked only where a filter would read them: an unfiltered page reads nothing more.
  const filters = () => entriesComplete(db, CALL_FILTER_ENTRIES);
  if (filter.campaignId && (await filters())) return byId(campaignCallsList(tenantId, filter.campaignId));
  if ((filter.outcome || (filter.status && !live)) && (await entriesComplete(db, CALL_END_ENTRIES))) {
    return byId(filter.outcome ? callsWithOutcomeList(tenantId, filter.outcome) : callsEndedAsList(tenantId, filter.status!));
  }
  if (live && (await filters())) return byId(liveCallsList(tenantId));
  if ((filter.createdFrom || filter.createdBefore) && (await filters())) return { prefix: callsByCreationList(tenantId), byCreation: true };
  return null;
}

/** A page: the calls after the last one shown (its id, and its `created_at` for a span's list: read by id when not given). */
export interface CallListPage {
  beforeId: string | null;
  beforeCreatedAt?: Date | null;
  limit: number;
}

/** The creation list's bounds, within the list: below the page's last call (or the span's end), above the span's start. */
async function creationBounds(db: Db, tenantId: string, filter: CallListFilter, page: CallListPage): Promise<{ from: string | null; until: string | null }> {
  const until = filter.createdFrom ? creationBound(filter.createdFrom) : null;
  if (page.beforeId === null) return { from: filter.createdBefore ? creationBound(filter.createdBefore) : null, until };
  const createdAt = page.beforeCreatedAt ?? (await callCollections(db).calls.findOne({ _id: page.beforeId, tenant_id: tenantId }, { projection: { created_at: 1 } }))?.created_at;
  // A cursor's call that is gone: the page goes on from the span's end, as a first page would.
  if (!createdAt) return { from: filter.createdBefore ? creationBound(filter.createdBefore) : null, until };
  return { from: creationPosition(createdAt, page.beforeId), until };
}

export async function listCalls(db: Db, tenantId: string, filter: CallListFilter, page: CallListPage): Promise<CallDoc[]> {
  const list = await listOf(db, tenantId, filter);
  if (list === 'empty') return [];
  if (list) {
    const bounds = list.byCreation ? await creationBounds(db, tenantId, filter, page) : { from: page.beforeId, until: null };
    // A live key of a call that has ended is one the end's delete has not reached (or a backfill wrote back): removed once read past.
    const ended: string[] = [];
    const livePrefix = `${liveCallsList(tenantId)}|`;
    // The list's entries, newest first, then those calls by id.
    const calls = await readThroughEntries({
      entries: callEntriesCollection(db),
      prefix: list.prefix,
      order: -1,
      ...bounds,
      limit: page.limit,
      records: callCollections(db).calls,
      keep: (call, key) => {
        if (key.startsWith(livePrefix) && !isLiveStatus(call.status)) ended.push(key);
        return passes(call, tenantId, filter);
      },
    });
    if (ended.length > 0) await callEntriesCollection(db).deleteMany({ _id: { $in: ended } });
    return calls;
  }
  const query: Filter<CallDoc> = { tenant_id: tenantId };
  if (filter.status) query.status = filter.status;
  if (filter.outcome) query.outcome = filter.outcome;
  if (filter.to) query.to = filter.to;
  if (filter.campaignId) (query as Record<string, unknown>)['metadata.campaign_id'] = filter.campaignId;
  if (filter.createdFrom || filter.createdBefore) {
    query.created_at = { ...(filter.createdFrom ? { $gte: filter.createdFrom } : {}), ...(filter.createdBefore ? { $lt: filter.createdBefore } : {}) };
  }
  // Always a string range on `_id`, with the page's sort on `_id`: FerretDB on SQLite then walks
  // its `_id` index from the newest call down and stops once the page is full, instead of
  // reading every call to sort them (the console's list answered 503 at 20,000 calls).
  const ids = idRange('call');
  query._id = { $gt: ids.$gt, $lt: page.beforeId ?? ids.$lt };
  return callCollections(db).calls.find(query).sort({ _id: -1 }).limit(page.limit).toArray();
}

