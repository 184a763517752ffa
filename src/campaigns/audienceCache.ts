import type { Db } from 'mongodb';
import { readContactsStamp } from '../contacts';
import { resolveAudience, type ResolvedAudience } from './audience';
import type { CampaignDoc } from './campaign';

/**
 * The audiences this API process resolved lately, so that a launch reuses what its evaluate
 * read moments before instead of scanning the workspace's contacts again (a 50,000-person
 * audience is one scan of several seconds on FerretDB; docs/campaigns.md). Reused only for
 * the same campaign at the same version while the workspace's contacts stamp is unchanged
 * (src/contacts/contactsStamp.ts): a contact written in between makes the launch read
 * afresh. Opt-outs, template and sender are always read afresh; only the contact rows are
 * kept. A process that did not evaluate (another API replica) simply scans.
 */

type CampaignKey = Pick<CampaignDoc, '_id' | 'tenant_id' | 'version' | 'audience'>;

interface Entry {
  key: string;
  audience: ResolvedAudience;
  storedAt: number;
}

export interface AudienceCacheOptions {
  /** How long a resolved audience may be reused. */
  ttlMs?: number;
  /** Rows kept across every entry: bounds the memory (a row is about 200 bytes). */
  maxRows?: number;
  now?: () => number;
}

export const AUDIENCE_CACHE_TTL_MS = 10 * 60_000;
export const AUDIENCE_CACHE_MAX_ROWS = 200_000;

export interface AudienceCache {
  resolve(db: Db, campaign: CampaignKey): Promise<ResolvedAudience>;
  /** How many campaigns' audiences are held (for tests). */
  size(): number;
}

export function createAudienceCache(options: AudienceCacheOptions = {}): AudienceCache {
  const ttlMs = options.ttlMs ?? AUDIENCE_CACHE_TTL_MS;
  const maxRows = options.maxRows ?? AUDIENCE_CACHE_MAX_ROWS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const rowsHeld = () => [...entries.values()].reduce((sum, e) => sum + e.audience.rows.length, 0);

  function store(campaignId: string, entry: Entry): void {
    entries.delete(campaignId);
    if (entry.audience.rows.length > maxRows) return;
    entries.set(campaignId, entry);
    // Oldest first out, until the rows fit.
    for (const [id] of entries) {
      if (rowsHeld() <= maxRows) break;
      entries.delete(id);
    }
  }

  return {
    async resolve(db, campaign) {
      // Read before the contacts: a write landing during the scan moves the stamp past this one.
      const stamp = await readContactsStamp(db, campaign.tenant_id);
      const key = `${campaign.tenant_id}|${campaign.version}|${stamp}`;
      const held = entries.get(campaign._id);
      if (held && held.key === key && now() - held.storedAt < ttlMs) return held.audience;
      const audience = await resolveAudience(db, campaign);
      store(campaign._id, { key, audience, storedAt: now() });
      return audience;
    },
    size: () => entries.size,
  };
}
