import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { campaignCollections, findCampaign, type CampaignDoc } from './campaign';
import type { CampaignTrigger } from './status';

/**
 * One document per campaign version, `_id` `<campaign_id>:v<n>`: the claim that makes a
 * version change exclusive. FerretDB applies a conditional update by reading and then
 * writing, so a `{version: n}` filter alone lets several writers through; inserting a unique
 * `_id` is atomic there, so whoever inserts `<id>:v<n+1>` is the only one who may write
 * version n+1 (two parallel launches or pauses: one wins, the other is a 409). The same
 * scheme as ticket versions (src/tickets/ticketStore.ts).
 */
export interface CampaignVersionDoc {
  _id: string;
  tenant_id: string;
  campaign_id: string;
  version: number;
  trigger: CampaignTrigger['kind'];
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

export type ClaimResult = { kind: 'won'; claim: CampaignVersionDoc } | { kind: 'lost'; winner: CampaignVersionDoc | null };

/** Claims the version after `campaign.version`; exactly one of parallel claimers wins. */
export async function claimNextVersion(
  db: Db,
  campaign: CampaignDoc,
  trigger: CampaignTrigger['kind'],
  set: Record<string, unknown>,
  now: Date,
): Promise<ClaimResult> {
  const version = campaign.version + 1;
  const claim: CampaignVersionDoc = {
    _id: campaignVersionId(campaign._id, version),
    tenant_id: campaign.tenant_id,
    campaign_id: campaign._id,
    version,
    trigger,
    set: { ...set, updated_at: now },
    created_at: now,
  };
  if (await insertIfAbsent(campaignVersions(db), claim)) return { kind: 'won', claim };
  return { kind: 'lost', winner: await campaignVersions(db).findOne({ _id: claim._id }) };
}

/** Whether a claim that lost to `winner` may finish it: its writer has had the lease and is gone. */
export function isAbandoned(winner: CampaignVersionDoc, current: CampaignDoc, now: Date): boolean {
  return current.version === winner.version - 1 && now.getTime() - winner.created_at.getTime() > CAMPAIGN_CLAIM_LEASE_MS;
}

/**
 * Writes a claimed version (with `extra`, whole fields known only once its effect ran, e.g.
 * the staged count). `$set` of the version, never `$inc`: writing the same claim twice gives
 * the same campaign. Null when the campaign is at neither version (a claim out of turn).
 */
export async function writeClaimedVersion(db: Db, claim: CampaignVersionDoc, extra: Record<string, unknown> = {}): Promise<CampaignDoc | null> {
  const written = await campaignCollections(db).campaigns.findOneAndUpdate(
    { _id: claim.campaign_id, version: claim.version - 1 },
    { $set: { ...claim.set, ...extra, version: claim.version } },
    { returnDocument: 'after' },
  );
  if (written) return written;
  const current = await findCampaign(db, claim.tenant_id, claim.campaign_id);
  return current && current.version >= claim.version ? current : null;
}
