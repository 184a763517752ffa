import type { Db } from 'mongodb';
import { entriesComplete, readThroughEntries } from '../db/keyedEntries';
import { campaignCollections, type CampaignDoc, type CampaignStatus } from './campaign';
import { CAMPAIGN_ENTRIES, campaignEntriesCollection, campaignPosition, campaignsInStatusList, isCurrentCampaignKey, recentCampaignsList } from './campaignEntries';
import { countsOf, type CampaignCounts } from './progress';
import { readRecipientBatch, type CampaignRecipientDoc } from './staging';

/**
 * The campaign reads the public API and the console share: a page of campaigns (most
 * recently changed first, with their live counters) and a page of recipients by position.
 * Cursors stay with the routes (each binds its own to its list).
 */

export interface CampaignListQuery {
  /** One status; omitted: all except `archived`, unless `includeArchived`. */
  status?: CampaignStatus;
  includeArchived?: boolean;
  /** The last item of the previous page. */
  after?: { updatedAt: Date; id: string } | null;
  limit: number;
}

export async function listCampaigns(db: Db, tenantId: string, query: CampaignListQuery): Promise<(CampaignDoc & Pick<CampaignCounts, 'states'>)[]> {
  const docs = (await entriesComplete(db, CAMPAIGN_ENTRIES)) ? await campaignsThroughEntries(db, tenantId, query) : await campaignsByScan(db, tenantId, query);
  const counts = await countsOf(db, docs);
  return docs.map((d) => ({ ...d, ...counts.get(d._id)! }));
}

/**
 * The page read through the campaigns' keyed entries (src/campaigns/campaignEntries.ts): a
 * status filter walks that status's list, no filter the list of all (archived ones skipped).
 */
function campaignsThroughEntries(db: Db, tenantId: string, query: CampaignListQuery): Promise<CampaignDoc[]> {
  const { status, includeArchived } = query;
  return readThroughEntries({
    entries: campaignEntriesCollection(db),
    prefix: status ? campaignsInStatusList(tenantId, status) : recentCampaignsList(tenantId),
    order: -1,
    from: query.after ? campaignPosition(query.after.updatedAt, query.after.id) : null,
    limit: query.limit,
    records: campaignCollections(db).campaigns,
    keep: (c, key) => c.tenant_id === tenantId && isCurrentCampaignKey(key, c) && (status ? c.status === status : includeArchived || c.status !== 'archived'),
  });
}

/** The same page by a query on the campaigns (a scan on FerretDB): until the entries' backfill is done. */
function campaignsByScan(db: Db, tenantId: string, query: CampaignListQuery): Promise<CampaignDoc[]> {
  const filter: Record<string, unknown> = { tenant_id: tenantId };
  if (query.status) filter.status = query.status;
  else if (!query.includeArchived) filter.status = { $ne: 'archived' };
  if (query.after) {
    const { updatedAt, id } = query.after;
    filter.$or = [{ updated_at: { $lt: updatedAt } }, { updated_at: updatedAt, _id: { $lt: id } }];
  }
  return campaignCollections(db).campaigns.find(filter).sort({ updated_at: -1, _id: -1 }).limit(query.limit).toArray();
}

/**
 * Recipients `[from, from + limit)` by position (point reads of known keys); `next` is the
 * next page's first position, or null once the staged count is reached, so the last page
 * never points at an empty one.
 */
export async function recipientPage(
  db: Db,
  campaign: Pick<CampaignDoc, '_id' | 'recipients'>,
  from: number,
  limit: number,
): Promise<{ docs: CampaignRecipientDoc[]; next: number | null }> {
  const docs = await readRecipientBatch(db, campaign._id, from, Math.max(0, Math.min(limit, campaign.recipients - from)));
  const end = from + limit;
  return { docs, next: end < campaign.recipients ? end : null };
}
