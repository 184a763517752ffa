import type { Db } from 'mongodb';
import type { WorkspaceDoc } from '../db/collections';
import { findList } from '../lists';
import { audienceContactIds, campaignCollections, findCampaign, type CampaignDoc } from './campaign';
import { createCampaign, draftCampaign, type CampaignRequest, type CreateRefusal, type Drafted } from './createCampaign';
import { guardrail, versionConflict } from './refusal';
import { claimNextVersion, writeClaimedVersion } from './versions';

/**
 * Edit and duplicate for drafts (the console; issue 35 §1). An edit replaces a draft's request
 * whole, by the same rules as a create (`draftCampaign`), and takes the campaign's next version
 * (the versioned write's claim, so two edits, or an edit and a launch, have one winner);
 * once launched a campaign is no draft, and its edit is refused `campaign_frozen` (412), as a
 * launch of a finished one is. A duplicate is a new draft (version 1) with the source's
 * request, whatever the source's state: the way to change what a launched campaign sends.
 */

export type EditResult = { kind: 'edited'; campaign: CampaignDoc } | { kind: 'not_found' } | CreateRefusal;

/** The fields of a draft that its request sets; an edit writes them whole, nothing else. */
const REQUEST_FIELDS = ['name', 'audience', 'template', 'sender_id', 'agent_id', 'purpose', 'script', 'capture', 'call_back_incomplete', 'schedule', 'consent', 'metadata'] as const;

export async function editDraft(
  db: Db,
  input: { workspace: WorkspaceDoc; campaignId: string; expectedVersion: number; request: CampaignRequest; now: Date },
): Promise<EditResult> {
  const { workspace, now } = input;
  const current = await findCampaign(db, workspace._id, input.campaignId);
  if (!current) return { kind: 'not_found' };
  if (current.status !== 'draft') {
    return {
      kind: 'refused',
      refusal: guardrail('campaign_frozen', `This campaign is ${current.status}; only a draft can be edited.`, 'Duplicate it: the copy is a draft with the same settings, which you can edit and launch.'),
    };
  }
  if (current.version !== input.expectedVersion) return { kind: 'refused', refusal: versionConflict(current.version, input.expectedVersion) };
  if (input.request.channel !== current.channel) {
    return { kind: 'invalid_field', loc: ['body', 'channel'], msg: `A ${current.channel} draft stays ${current.channel}; duplicate it or create a new campaign for another channel.`, type: 'channel_fixed' };
  }
  const listId = input.request.audience.kind === 'uploaded_list' ? input.request.audience.list_id : null;
  const list = listId ? await findList(db, workspace._id, listId) : null;
  // `metadata` is stored and never returned (campaigns-tickets-dues §2), so no form can carry it: an edit keeps the draft's.
  const drafted = draftCampaign({ ...input.request, metadata: current.metadata }, { workspace, createdBy: current.created_by, now, list });
  if (drafted.kind !== 'drafted') return drafted;
  const set: Record<string, unknown> = Object.fromEntries(REQUEST_FIELDS.map((field) => [field, drafted.campaign[field]]));
  set.updated_at = now;
  const claim = await claimNextVersion(db, current, 'edit', set, now);
  if (claim.kind === 'lost') {
    const latest = (await findCampaign(db, workspace._id, current._id)) ?? current;
    return { kind: 'refused', refusal: versionConflict(Math.max(latest.version, current.version + 1), input.expectedVersion) };
  }
  // The audience's ids live beside the campaign (campaign_audiences): written before the version, so the edited draft always has them.
  await campaignCollections(db).audiences.replaceOne(
    { _id: current._id },
    { tenant_id: workspace._id, contact_ids: input.request.audience.kind === 'contact_ids' ? drafted.contactIds : [] },
    { upsert: true },
  );
  const written = await writeClaimedVersion(db, claim.claim);
  return { kind: 'edited', campaign: written ?? (await findCampaign(db, workspace._id, current._id))! };
}

/** The request a campaign was drafted from, read back from the record (its audience's ids from `campaign_audiences`). */
export async function requestOf(db: Db, c: CampaignDoc): Promise<CampaignRequest> {
  const contactIds = c.audience.kind === 'contact_ids' ? await audienceContactIds(db, c) : [];
  const s = c.schedule;
  return {
    name: c.name,
    channel: c.channel,
    audience: { kind: c.audience.kind, contact_ids: contactIds, tags: c.audience.tags, list_id: c.audience.list_id ?? null },
    template: c.template,
    agent_id: c.agent_id,
    purpose: c.purpose,
    script: c.script,
    capture: c.capture,
    call_back_incomplete: c.call_back_incomplete,
    schedule: {
      start_at: s.start_at,
      timezone: s.timezone,
      throttle_per_minute: s.throttle_per_minute,
      // The hours as asked, so the copy is clamped as the source was.
      send_window_start_hour: s.requested_start_hour,
      send_window_end_hour: s.requested_end_hour,
      ...(s.recipient_time_zone === undefined ? {} : { recipient_time_zone: s.recipient_time_zone }),
    },
    consent: c.consent && { basis: c.consent.basis, note: c.consent.note },
    sender_id: c.sender_id,
    metadata: c.metadata,
  };
}

/** A new draft with the source's request, named `Copy of …` (cut to the create's name limit); a start already past is dropped. */
export async function duplicateCampaign(
  db: Db,
  input: { workspace: WorkspaceDoc; campaignId: string; createdBy: CampaignDoc['created_by']; now: Date; nameMaxChars: number },
): Promise<Drafted | CreateRefusal | { kind: 'not_found' }> {
  const source = await findCampaign(db, input.workspace._id, input.campaignId);
  if (!source) return { kind: 'not_found' };
  const request = await requestOf(db, source);
  // A start already past would launch the copy at once: the copy starts when launched unless one is set again.
  if (request.schedule.start_at && request.schedule.start_at <= input.now) request.schedule.start_at = null;
  request.name = `Copy of ${source.name}`.slice(0, input.nameMaxChars);
  return createCampaign(db, request, { workspace: input.workspace, createdBy: input.createdBy, now: input.now });
}
