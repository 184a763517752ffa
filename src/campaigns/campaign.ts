import type { Capture } from '../calls';
import type { Collection, Db } from 'mongodb';
import type { IndexSet } from '../db/collections';

/**
 * The campaign record (campaigns-tickets-dues §2) as stored. The large parts live apart so
 * that listing, which scans on FerretDB, never reads them: the `contact_ids` of an audience
 * (up to 50,000) are in `campaign_audiences` under the campaign's id, and the staged
 * recipients in `campaign_recipients` (see staging.ts).
 */

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'failed', 'cancelled', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_CHANNELS = ['whatsapp', 'voice'] as const;
export type CampaignChannel = (typeof CAMPAIGN_CHANNELS)[number];
export type CampaignType = 'whatsapp_broadcast' | 'voice_batch';

export const CONSENT_BASES = ['existing_customer', 'explicit_opt_in', 'inbound_enquiry', 'service_message'] as const;
export type ConsentBasis = (typeof CONSENT_BASES)[number];

/** Reasons a matched contact is left out (the contract's list; `quiet_hours` is a finding only). */
export const EXCLUSION_REASONS = [
  'channel_consent_missing',
  'suppressed',
  'duplicate_recipient',
  'invalid_destination',
  'missing_variable',
  /** Call campaigns: the number's country is not enabled for outbound calls. */
  'country_not_allowed',
] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export const COUNTER_NAMES = ['sent', 'delivered', 'read', 'failed', 'skipped'] as const;
export type CampaignCounters = Record<(typeof COUNTER_NAMES)[number], number>;

/** `uploaded_list` is console-only (campaigns-tickets-dues §4): the public API refuses it at create. */
export const AUDIENCE_KINDS = ['contact_ids', 'segment', 'uploaded_list'] as const;
export type AudienceKind = (typeof AUDIENCE_KINDS)[number];

export interface CampaignAudience {
  kind: AudienceKind;
  /** Normalised like contact tags; empty for `contact_ids`. */
  tags: string[];
  /** How many ids were sent; the ids themselves are in `campaign_audiences`. */
  contact_id_count: number;
  /** `uploaded_list` only: the list (src/lists/listStore.ts), which never changes once stored. */
  list_id?: string;
}

export interface CampaignTemplate {
  name: string;
  language: string | null;
  /** Each a literal or carrying `{{contact.name|phone|email}}` tokens (templateTokens.ts). */
  variables: string[];
}

/** What runs the campaign: the request's values with omitted ones from the workspace settings. */
export interface CampaignSchedule {
  start_at: Date | null;
  timezone: string;
  throttle_per_minute: number;
  /** The window in force: the asked hours clamped to the floor and ceiling. */
  send_window_start_hour: number;
  send_window_end_hour: number;
  /** The hours as asked, so evaluate can say they were clamped (`quiet_hours`). */
  requested_start_hour: number | null;
  requested_end_hour: number | null;
  /**
   * Call campaigns, beyond the contract: the window holds in each person's own zone (from
   * their number's country; src/campaigns/voice/recipientZone.ts) instead of `timezone`. Absent on
   * WhatsApp campaigns and on call campaigns drafted before it (false).
   */
  recipient_time_zone?: boolean;
}

/** Pinned at launch and never changed after (the contract's consent pin). */
export interface ConsentPin {
  pinned_at: Date;
  recipients: number;
  checksum: string;
}

export interface CampaignDoc {
  /** `cmp_` + time-ordered id (src/domain/ids.ts). */
  _id: string;
  tenant_id: string;
  name: string;
  channel: CampaignChannel;
  type: CampaignType;
  status: CampaignStatus;
  version: number;
  audience: CampaignAudience;
  template: CampaignTemplate | null;
  sender_id: string | null;
  /** Voice fields (issue 15); null / false on WhatsApp campaigns, which refuse them. */
  agent_id: string | null;
  purpose: string | null;
  script: string | null;
  capture: Capture | null;
  call_back_incomplete: boolean;
  schedule: CampaignSchedule;
  consent: { basis: ConsentBasis; note: string | null; pin: ConsentPin | null } | null;
  /** Stored, never returned (campaigns-tickets-dues §2). */
  metadata: Record<string, unknown>;
  recipients: number;
  counters: CampaignCounters;
  excluded: Partial<Record<ExclusionReason, number>>;
  /** Who made it: the API key, or an app (listing includes app-created campaigns). */
  created_by: { kind: 'api_key' | 'app' | 'console'; id: string };
  created_at: Date;
  /** Moves on every change of the record; the list order and cursor. */
  updated_at: Date;
  launched_at: Date | null;
  completed_at: Date | null;
}

/** `_id` is the campaign id: read by one point read, only by evaluate and staging. */
export interface CampaignAudienceDoc {
  _id: string;
  tenant_id: string;
  contact_ids: string[];
}

export function campaignCollections(db: Db): { campaigns: Collection<CampaignDoc>; audiences: Collection<CampaignAudienceDoc> } {
  return {
    campaigns: db.collection<CampaignDoc>('campaigns'),
    audiences: db.collection<CampaignAudienceDoc>('campaign_audiences'),
  };
}

/** The campaigns' indexes, created at each start by the composition roots (src/main/indexes.ts). */
export const CAMPAIGN_INDEXES: IndexSet = {
  campaigns: [{ key: { tenant_id: 1, updated_at: -1, _id: -1 }, name: 'tenant_recent' }],
};

/** By `_id` alone (FerretDB's one indexed filter); another workspace's campaign is not found. */
export async function findCampaign(db: Db, tenantId: string, campaignId: string): Promise<CampaignDoc | null> {
  const doc = await campaignCollections(db).campaigns.findOne({ _id: campaignId });
  return doc?.tenant_id === tenantId ? doc : null;
}

export async function audienceContactIds(db: Db, campaign: Pick<CampaignDoc, '_id' | 'tenant_id'>): Promise<string[]> {
  const doc = await campaignCollections(db).audiences.findOne({ _id: campaign._id });
  return doc?.tenant_id === campaign.tenant_id ? doc.contact_ids : [];
}

export const CAMPAIGN_ID_PATTERN = /^cmp_[0-9a-f]{24}$/;
