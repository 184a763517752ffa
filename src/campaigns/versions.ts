import type { Collection, Db } from 'mongodb';
import { claimHolding, claimVersion, isAbandoned as claimAbandoned, nextVersionClaim, writeClaim, type VersionedStore } from '../db/versionedWrite';
import { campaignCollections, findCampaign, type CampaignDoc, type CampaignStatus } from './campaign';
import { movingCampaignEntries } from './campaignEntries';
import type { CampaignTrigger } from './status';

/**
 * One document per campaign version, `_id` `<campaign_id>:v<n>`: the claim of the versioned
 * write (src/db/versionedWrite.ts) that makes a version change exclusive: whoever inserts
 * `<id>:v<n+1>` is the only one who may write version n+1 (two parallel launches or pauses:
 * one wins, the other is a 409).
 */
export interface CampaignVersionDoc {
  _id: string;
  tenant_id: string;
  campaign_id: string;
  version: number;
  /** A control's trigger, or a console edit of a draft (editDraft.ts). */
  trigger: CampaignTrigger['kind'] | 'edit';
  /** Whole top-level fields this version writes (never dotted paths), so anyone can finish it. */
  set: Record<string, unknown>;
  created_at: Date;
}

/**
 * A claim older than this whose campaign never reached its version was left by a process
 * that died; the next writer finishes it. Longer than staging 50,000 recipients on FerretDB.
 */
export const CAMPAIGN_CLAIM_LEASE_MS = 120_000;

export const campaignVersionId = (campaignId: string, version: number): string => `${campaignId}:v${version}`;

export function campaignVersions(db: Db): Collection<CampaignVersionDoc> {
  return db.collection<CampaignVersionDoc>('campaign_versions');
}

const versioned = (db: Db): VersionedStore<CampaignDoc, CampaignVersionDoc> => ({
  records: campaignCollections(db).campaigns,
  claims: campaignVersions(db),
  recordOf: (claim) => claim.campaign_id,
  read: (claim) => findCampaign(db, claim.tenant_id, claim.campaign_id),
});

export type ClaimResult = { kind: 'won'; claim: CampaignVersionDoc } | { kind: 'lost'; winner: CampaignVersionDoc | null };

/** Claims the version after `campaign.version`; exactly one of parallel claimers wins. */
export async function claimNextVersion(
  db: Db,
  campaign: CampaignDoc,
  trigger: CampaignVersionDoc['trigger'],
  set: Record<string, unknown>,
  now: Date,
): Promise<ClaimResult> {
  const claim: CampaignVersionDoc = nextVersionClaim(campaign, campaignVersionId, { campaign_id: campaign._id, trigger }, set, now);
  if (await claimVersion(versioned(db), claim)) return { kind: 'won', claim };
  return { kind: 'lost', winner: await claimHolding(versioned(db), claim._id) };
}

/** Whether a claim that lost to `winner` may finish it: its writer has had the lease and is gone. */
export function isAbandoned(winner: CampaignVersionDoc, current: CampaignDoc, now: Date): boolean {
  return claimAbandoned(winner, current, now, CAMPAIGN_CLAIM_LEASE_MS);
}

/**
 * Writes a claimed version (with `extra`, whole fields known only once its effect ran, e.g.
 * the staged count). Null when the campaign is at neither version (a claim out of turn).
 */
export async function writeClaimedVersion(db: Db, claim: CampaignVersionDoc, extra: Record<string, unknown> = {}): Promise<CampaignDoc | null> {
  // Every version moves the campaign in its lists (src/campaigns/campaignEntries.ts): the keys it will have before the write.
  const before = await campaignCollections(db).campaigns.findOne({ _id: claim.campaign_id }, { projection: { tenant_id: 1, updated_at: 1, status: 1, version: 1 } });
  const fields = { ...claim.set, ...extra };
  const next = { _id: claim.campaign_id, tenant_id: claim.tenant_id, updated_at: fields.updated_at as Date, status: (fields.status ?? before?.status) as CampaignStatus };
  return movingCampaignEntries(db, before?.version === claim.version - 1 ? before : null, next, () => writeClaim(versioned(db), claim, extra));
}
