import type { Db, Filter } from 'mongodb';
import { callCollections, type CallDoc } from './callStore';
import type { CallOutcome, CallStatus } from './types';
import { idRange } from '../domain/ids';
import { entriesComplete, readThroughEntries } from '../db/keyedEntries';
import { CALL_END_ENTRIES, CALL_NUMBER_ENTRIES, ENDED_STATUSES, callEntriesCollection, callsEndedAsList, callsToNumberList, callsWithOutcomeList } from './callEntries';

/**
 * The console's recent calls: a workspace's calls newest first, optionally one status, one
 * outcome, one number, one campaign, created within a span. Newest first is `_id` descending (call ids are
 * time-ordered, src/domain/ids.ts), the one order the calls' `tenant_newest` index serves on
 * MongoDB and, paged by `_id` below the last one shown, a page never repeats or skips a call
 * while new ones arrive at the top.
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

/**
 * The entries list a filtered page walks (src/calls/callEntries.ts), the narrowest the filter
 * names whose entries are complete: a number's calls are fewer than an outcome's, an outcome's
 * than an ended status's. None (a live status, a campaign, a span alone): the calls are read by
 * an `_id` range and filtered.
 */
async function listOf(db: Db, tenantId: string, filter: CallListFilter): Promise<string | null> {
  if (filter.to && (await entriesComplete(db, CALL_NUMBER_ENTRIES))) return callsToNumberList(tenantId, filter.to);
  if ((filter.outcome || (filter.status && ENDED_STATUSES.includes(filter.status))) && (await entriesComplete(db, CALL_END_ENTRIES))) {
    return filter.outcome ? callsWithOutcomeList(tenantId, filter.outcome) : callsEndedAsList(tenantId, filter.status!);
  }
  return null;
}

export async function listCalls(db: Db, tenantId: string, filter: CallListFilter, page: { beforeId: string | null; limit: number }): Promise<CallDoc[]> {
  const list = await listOf(db, tenantId, filter);
  if (list) {
    // The list's entries, newest first, then those calls by id.
    return readThroughEntries({
      entries: callEntriesCollection(db),
      prefix: list,
      order: -1,
      from: page.beforeId,
      limit: page.limit,
      records: callCollections(db).calls,
      keep: (call) => passes(call, tenantId, filter),
    });
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

