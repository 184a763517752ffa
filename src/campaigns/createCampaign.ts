import type { Capture } from '../calls';
import type { Db } from 'mongodb';
import type { WorkspaceDoc } from '../db/collections';
import { newId } from '../domain/ids';
import { normaliseTags } from '../domain/tags';
import {
  campaignCollections,
  type AudienceKind,
  type CampaignChannel,
  type CampaignDoc,
  type CampaignSchedule,
  type ConsentBasis,
} from './campaign';
import { clampWindow, isEmptyWindow } from '../domain/sendWindow';
import type { ChannelField } from './channelRegistration';
import { campaignChannel, registeredChannels } from './channels';
import { CampaignRefusal } from './refusal';
import { campaignSettingsOf } from './settings';
import { findList } from '../lists';
import { writeCampaignEntries } from './campaignEntries';
import { BROADCAST_TOKENS, CALL_TOKENS, checkTokens, listBroadcastTokens, listCallTokens } from './templateTokens';

/** The uploaded list an `uploaded_list` audience names, as the caller found it (null: no such list in the workspace). */
export interface AudienceList {
  _id: string;
  name: string;
  columns: readonly string[];
}

/**
 * POST /campaigns after schema validation (campaigns-tickets-dues §4): the three create
 * reasons, the schedule filled from the workspace's settings, and the draft (version 1).
 * The API cannot edit a draft, so this is the only writer of a campaign's request fields.
 */

export interface CampaignRequest {
  name: string;
  channel: CampaignChannel;
  /** `uploaded_list` (with `list_id`) comes only through the console: the public schema refuses it. */
  audience: { kind: AudienceKind; contact_ids: string[]; tags: string[]; list_id?: string | null };
  template: { name: string; language: string | null; variables: string[] } | null;
  agent_id: string | null;
  purpose: string | null;
  script: string | null;
  /** Already validated by the calls' capture rules. */
  capture: Capture | null;
  call_back_incomplete: boolean;
  schedule: {
    start_at?: Date | null;
    timezone?: string | null;
    throttle_per_minute?: number | null;
    send_window_start_hour?: number | null;
    send_window_end_hour?: number | null;
    recipient_time_zone?: boolean | null;
  };
  consent: { basis: ConsentBasis; note: string | null } | null;
  sender_id: string | null;
  metadata: Record<string, unknown>;
}

export type CreateRefusal =
  /** One of the contract's three create reasons (`template_not_found`, `invalid_argument`, `unknown_variable`). */
  | { kind: 'refused'; refusal: CampaignRefusal }
  /** 400 `Request validation failed.`: a field rule that needs the workspace's settings. */
  | { kind: 'invalid_field'; loc: (string | number)[]; msg: string; type: string };

export type Drafted = { kind: 'drafted'; campaign: CampaignDoc; contactIds: string[] };

/** A field counts as sent when it differs from its default (`call_back_incomplete: false` and `recipient_time_zone: false` are defaults). */
function sent(request: CampaignRequest, field: ChannelField): boolean {
  if (field === 'schedule.recipient_time_zone') return request.schedule.recipient_time_zone === true;
  const value = request[field];
  return field === 'call_back_incomplete' ? value === true : value !== null;
}

/** The channel's required field, then any field another channel owns (the first one sent is named). */
function channelRefusal(request: CampaignRequest): CreateRefusal | null {
  const refuse = (reason: 'template_not_found' | 'invalid_argument', message: string, field: string): CreateRefusal => ({
    kind: 'refused',
    refusal: new CampaignRefusal(reason, message, { field }),
  });
  const channel = campaignChannel(request.channel);
  const { required } = channel;
  // Present and not empty, as the hand-written checks read it (`!request.template`, `!request.agent_id`).
  const given = sent(request, required.field) && (required.field === 'schedule.recipient_time_zone' || Boolean(request[required.field]));
  if (!given) return refuse(required.reason, required.message, required.field);
  for (const [name, other] of registeredChannels()) {
    if (name === request.channel) continue;
    const field = other.ownFields.find((f) => sent(request, f));
    if (field) return refuse('invalid_argument', `${field} applies to ${other.label} campaigns only.`, field);
  }
  return null;
}

/**
 * A token the audience cannot fill is `unknown_variable` with its `field`: a contact audience
 * fills the contact's name, phone and email only (an uploaded list's column, `{{city}}`, is
 * refused there); an uploaded list fills its own columns only.
 */
function variableRefusal(request: CampaignRequest, list: AudienceList | null): CreateRefusal | null {
  const [broadcastTokens, callTokens] = list ? [listBroadcastTokens(list.columns), listCallTokens(list.columns)] : [BROADCAST_TOKENS, CALL_TOKENS];
  const unknown = (field: string, loc: (string | number)[], allowed: readonly string[]): CreateRefusal => ({
    kind: 'refused',
    refusal: new CampaignRefusal(
      'unknown_variable',
      `${list ? `The list "${list.name}" has no column for {{${field}}}` : `No contact can fill {{${field}}}`}; use ${allowed.map((t) => `{{${t}}}`).join(', ')}.`,
      { field, loc },
    ),
  });
  if (request.template) {
    const check = checkTokens(request.template.variables, broadcastTokens);
    if (!check.ok) return unknown(check.field, ['body', 'template', 'variables', check.index], broadcastTokens);
  }
  for (const field of ['purpose', 'script'] as const) {
    const text = request[field];
    const check = text === null ? ({ ok: true } as const) : checkTokens([text], callTokens);
    if (!check.ok) return unknown(check.field, ['body', field], callTokens);
  }
  return null;
}

/** An `uploaded_list` audience needs a list of this workspace; the others name none. */
function listRefusal(request: CampaignRequest, list: AudienceList | null | undefined): CreateRefusal | null {
  if (request.audience.kind !== 'uploaded_list') return null;
  if (list) return null;
  return {
    kind: 'refused',
    refusal: new CampaignRefusal(
      'invalid_argument',
      request.audience.list_id ? `Uploaded list ${request.audience.list_id} not found.` : 'An uploaded_list audience needs a list_id.',
      { field: 'audience.list_id' },
    ),
  };
}

function scheduleOf(request: CampaignRequest, workspace: WorkspaceDoc): CampaignSchedule | CreateRefusal {
  const settings = campaignSettingsOf(workspace);
  const asked = request.schedule;
  const window = clampWindow(
    { startHour: asked.send_window_start_hour ?? null, endHour: asked.send_window_end_hour ?? null },
    { startHour: settings.send_window_start_hour, endHour: settings.send_window_end_hour },
    campaignChannel(request.channel).windowBounds,
  );
  if (isEmptyWindow(window)) {
    return {
      kind: 'invalid_field',
      loc: ['body', 'schedule', asked.send_window_start_hour != null ? 'send_window_start_hour' : 'send_window_end_hour'],
      msg: `The send window ${window.startHour}:00 to ${window.endHour}:00 has no open hour; the start must come before the end.`,
      type: 'send_window_empty',
    };
  }
  return {
    start_at: asked.start_at ?? null,
    timezone: asked.timezone ?? settings.timezone,
    throttle_per_minute: asked.throttle_per_minute ?? settings.throttle_per_minute,
    send_window_start_hour: window.startHour,
    send_window_end_hour: window.endHour,
    requested_start_hour: asked.send_window_start_hour ?? null,
    requested_end_hour: asked.send_window_end_hour ?? null,
    // A channel's own settings (a call campaign's `recipient_time_zone`); the others refuse them and store nothing.
    ...campaignChannel(request.channel).ownSchedule(asked),
  };
}

/** The draft, or why it is refused. Pure: the caller stores it with `insertDraft`. */
export function draftCampaign(
  request: CampaignRequest,
  context: {
    workspace: WorkspaceDoc;
    createdBy: CampaignDoc['created_by'];
    now: Date;
    /** `uploaded_list` audiences: the list `audience.list_id` names, or null when the workspace has none such. */
    list?: AudienceList | null;
  },
): Drafted | CreateRefusal {
  const list = request.audience.kind === 'uploaded_list' ? (context.list ?? null) : null;
  const refusal = channelRefusal(request) ?? listRefusal(request, list) ?? variableRefusal(request, list);
  if (refusal) return refusal;
  const schedule = scheduleOf(request, context.workspace);
  if ('kind' in schedule) return schedule;
  const { now } = context;
  const segment = request.audience.kind === 'segment';
  const contactIds = request.audience.kind === 'contact_ids' ? request.audience.contact_ids : [];
  const campaign: CampaignDoc = {
    _id: newId('cmp', now),
    tenant_id: context.workspace._id,
    name: request.name,
    channel: request.channel,
    type: campaignChannel(request.channel).type,
    status: 'draft',
    version: 1,
    audience: {
      kind: request.audience.kind,
      tags: segment ? normaliseTags(request.audience.tags) : [],
      contact_id_count: contactIds.length,
      ...(list ? { list_id: list._id } : {}),
    },
    template: request.template,
    sender_id: request.sender_id,
    agent_id: request.agent_id,
    purpose: request.purpose,
    script: request.script,
    capture: request.capture,
    call_back_incomplete: request.call_back_incomplete,
    schedule,
    consent: request.consent ? { ...request.consent, pin: null } : null,
    metadata: request.metadata,
    recipients: 0,
    counters: { sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 },
    excluded: {},
    created_by: context.createdBy,
    created_at: now,
    updated_at: now,
    launched_at: null,
    completed_at: null,
  };
  return { kind: 'drafted', campaign, contactIds };
}

/**
 * Writes the audience's ids first, then the campaign's list entries, then the campaign, so a
 * campaign that exists always has its audience and its place in the lists (a failure between
 * leaves only an unreachable audience document or entries that are skipped).
 */
export async function insertDraft(db: Db, drafted: Drafted): Promise<void> {
  const { campaigns, audiences } = campaignCollections(db);
  const { campaign, contactIds } = drafted;
  if (campaign.audience.kind === 'contact_ids') {
    await audiences.insertOne({ _id: campaign._id, tenant_id: campaign.tenant_id, contact_ids: contactIds });
  }
  await writeCampaignEntries(db, [campaign]);
  await campaigns.insertOne(campaign);
}

/**
 * The create as both doors use it (POST /api/v1/campaigns and the console's create): the
 * draft stored, or the refusal with nothing written. Only `createdBy` differs between them.
 */
export async function createCampaign(
  db: Db,
  request: CampaignRequest,
  context: { workspace: WorkspaceDoc; createdBy: CampaignDoc['created_by']; now: Date },
): Promise<Drafted | CreateRefusal> {
  const listId = request.audience.kind === 'uploaded_list' ? request.audience.list_id : null;
  const list = listId ? await findList(db, context.workspace._id, listId) : null;
  const drafted = draftCampaign(request, { ...context, list });
  if (drafted.kind !== 'drafted') return drafted;
  await insertDraft(db, drafted);
  return drafted;
}
