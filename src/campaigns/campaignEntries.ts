import type { Collection, Db } from 'mongodb';
import { backfillEntries, entryKey, entryKeyIn, entryParts, movingEntries, timeKey, writeEntries, type EntryDoc } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { campaignCollections, type CampaignDoc, type CampaignStatus } from './campaign';

/**
 * A workspace's campaigns, most recently changed first, as keyed entries (src/db/keyedEntries.ts),
 * so the public and console lists read their page and not the campaigns collection:
 * - every campaign, `<tenant>|recent|<updated_at, 12 hex ms>|<campaign id>`;
 * - by status, `<tenant>|status:<status>|<updated_at>|<campaign id>` (the lists' status filter).
 * The key's order is the lists' (`updated_at`, then `_id`, descending). Both move with each
 * version (every version stamps `updated_at`): the new keys before the write, the old ones
 * removed after; a key whose time or status is not the campaign's is skipped when read.
 */
export const campaignEntriesCollection = (db: Db): Collection<EntryDoc> => db.collection<EntryDoc>('campaign_entries');

/** The backfill's name (src/db/keyedEntries.ts `entriesComplete`). */
export const CAMPAIGN_ENTRIES = 'campaign_entries';

type Keyed = Pick<CampaignDoc, '_id' | 'tenant_id' | 'updated_at' | 'status'>;

export const recentCampaignsList = (tenantId: string): string => entryKey(tenantId, 'recent');
export const campaignsInStatusList = (tenantId: string, status: CampaignStatus): string => entryKey(tenantId, `status:${status}`);

/** Where a campaign is in its lists (after the list's prefix); also where a page ending on it continues from. */
export const campaignPosition = (updatedAt: Date, campaignId: string): string => entryKey(timeKey(updatedAt), campaignId);

export function campaignKeys(c: Keyed): string[] {
  const at = timeKey(c.updated_at);
  return [entryKeyIn(recentCampaignsList(c.tenant_id), at, c._id), entryKeyIn(campaignsInStatusList(c.tenant_id, c.status), at, c._id)];
}

/** Whether a key is the campaign's current place: its time is the campaign's `updated_at` (a status key's status is checked by the reader's filter). */
export function isCurrentCampaignKey(key: string, c: Pick<CampaignDoc, 'updated_at'>): boolean {
  const parts = entryParts(key);
  return parts[parts.length - 2] === timeKey(c.updated_at);
}

/** Before the campaign is inserted (idempotent: a retried create writes the same keys). */
export async function writeCampaignEntries(db: Db, campaigns: readonly Keyed[]): Promise<void> {
  await writeEntries(campaignEntriesCollection(db), campaigns.flatMap(campaignKeys));
}

/**
 * Moves a campaign in its lists around a version's write (src/db/keyedEntries.ts
 * `movingEntries`): `next` (the keys the version will give it) before `write`, then the keys
 * of `before` that the written record no longer has removed. The written record is the truth:
 * if it differs from what was foreseen (another writer finished the same claim), its own keys
 * are written too.
 */
export function movingCampaignEntries<T extends Keyed | null>(db: Db, before: Keyed | null, next: Keyed, write: () => Promise<T>): Promise<T> {
  return movingEntries({ entries: campaignEntriesCollection(db), keysOf: campaignKeys, before, next, write });
}

/** The entries of campaigns written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillCampaignEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(
    db,
    CAMPAIGN_ENTRIES,
    campaignCollections(db).campaigns,
    idRange('cmp'),
    { _id: 1, tenant_id: 1, updated_at: 1, status: 1 },
    (batch) => writeCampaignEntries(db, batch),
    shouldStop,
  );
}
