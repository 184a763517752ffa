import { z } from 'zod';
import { CONSENT_BASES } from '../../../src/campaigns/campaign';
import { CAMPAIGN_LIMITS as L } from '../../../src/campaigns/limits';
import { isTimeZone } from '../../../src/workspaces/workspaces';
import { AUDIENCE_KINDS } from '../../../src/campaigns/campaign';
import { LIST_ID_PATTERN } from '../../../src/lists/listStore';
import { RUN_STATES } from '../../../src/campaigns/runExplanation';
import { RECIPIENT_STATES } from '../../../src/campaigns/staging';
import { captureOut } from '../../shared/calls.schema';
import {
  audienceLists,
  campaignRecord,
  createCampaignBody,
  launchedCampaign,
  listCampaignsQuery,
  listRecipientsQuery,
  recipientRecord,
  segmentNeedsTag,
} from '../../shared/campaigns.schema';

/**
 * Request and response shapes of the console's campaign routes. The campaign rules are the
 * public API's (api/shared/campaigns.schema.ts): the same id rule, list limits and control
 * bodies, and the public record under the console's additions.
 */

const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The public list's query plus `include_archived` (without `status`, archived ones too). */
export const consoleListCampaignsQuery = listCampaignsQuery.extend({ include_archived: queryBoolean.default(false) });

/** The public page query plus `state`: only the people in that state (the campaign page's report filter). */
export const consoleRecipientsQuery = listRecipientsQuery.extend({ state: z.enum(RECIPIENT_STATES).optional() });

/** The CSV of the report: every person, or those in `state`. */
export const recipientsCsvQuery = z.object({ state: z.enum(RECIPIENT_STATES).optional() });

/** A recipient as the report shows it: the public record and its state with the reason in words. */
export const consoleRecipientRecord = recipientRecord.extend({
  status_words: z.string(),
  /** WhatsApp campaigns: the person's latest reply since the launch (first 140 characters), or null. */
  reply: z.object({ text: z.string(), at: z.string() }).nullable(),
});

/** What the campaign sends and to whom (src/campaigns/preview.ts). */
export const campaignPreviewRecord = z.object({
  channel: z.string(),
  audience: z.object({
    kind: z.string(),
    tags: z.array(z.string()),
    list_id: z.string().nullable(),
    list_name: z.string().nullable(),
    contact_id_count: z.number().int(),
    words: z.string(),
  }),
  sender: z.object({ sender_id: z.string(), display_name: z.string(), phone: z.string() }).nullable(),
  sender_problem: z.string().nullable(),
  template: z.object({ name: z.string(), language: z.string().nullable(), body: z.string().nullable(), header: z.string().nullable() }).nullable(),
  sample: z.object({ name: z.string().nullable(), to: z.string(), from: z.enum(['staged', 'evaluation']) }).nullable(),
  message: z.string().nullable(),
  purpose: z.string().nullable(),
  script: z.string().nullable(),
});

/**
 * The workspace's campaign defaults (src/campaigns/settings.ts). Window hours lie inside the
 * 09:00 floor and 21:00 ceiling (a default outside them would be clamped at every draft
 * anyway); the window must keep an open hour, checked against the stored values too.
 */
export const campaignSettingsBody = z
  .object({
    throttle_per_minute: z.number().int().min(L.throttleMin).max(L.throttleMax),
    send_window_start_hour: z.number().int().min(L.sendWindowFloorHour).max(L.sendWindowCeilingHour - 1),
    send_window_end_hour: z.number().int().min(L.sendWindowFloorHour + 1).max(L.sendWindowCeilingHour),
    /** Null: the workspace's own zone. */
    timezone: z.string().max(L.timezoneMaxChars).refine(isTimeZone, 'an IANA time zone, e.g. Asia/Kolkata').nullable(),
    max_recipients_per_campaign: z.number().int().min(1).max(L.recipientCeiling),
  })
  .partial()
  .strict();

/**
 * The console's create: the public body, whose audience may also be an uploaded list
 * (`kind: uploaded_list` with `list_id`; console-only, campaigns-tickets-dues §4).
 */
export const consoleCreateCampaignBody = createCampaignBody.extend({
  audience: z
    .object({
      kind: z.enum(AUDIENCE_KINDS).default('contact_ids'),
      ...audienceLists,
      list_id: z.string().regex(LIST_ID_PATTERN).nullable().default(null),
    })
    .refine(...segmentNeedsTag)
    .refine((a) => a.kind !== 'uploaded_list' || a.list_id !== null, { message: 'An uploaded_list audience needs a list_id.', path: ['list_id'] }),
});

/** A campaign's request as the create took it (what the edit form starts from, and a duplicate copies), with the version it was read at. */
export const campaignRequestRecord = z.object({
  campaign_id: z.string(),
  version: z.number().int(),
  status: z.string(),
  request: z.object({
    name: z.string(),
    channel: z.string(),
    audience: z.object({ kind: z.enum(AUDIENCE_KINDS), contact_ids: z.array(z.string()), tags: z.array(z.string()), list_id: z.string().nullable() }),
    template: z.object({ name: z.string(), language: z.string().nullable(), variables: z.array(z.string()) }).nullable(),
    agent_id: z.string().nullable(),
    purpose: z.string().nullable(),
    script: z.string().nullable(),
    capture: captureOut.nullable(),
    call_back_incomplete: z.boolean(),
    schedule: z.object({
      start_at: z.string().nullable(),
      timezone: z.string().nullable(),
      throttle_per_minute: z.number().int().nullable(),
      send_window_start_hour: z.number().int().nullable(),
      send_window_end_hour: z.number().int().nullable(),
      recipient_time_zone: z.boolean().optional(),
    }),
    consent: z.object({ basis: z.string(), note: z.string().nullable() }).nullable(),
    sender_id: z.string().nullable(),
  }),
});

/** A draft's edit: the create's body whole (it replaces the request) and the version it was read at. */
export const editCampaignBody = consoleCreateCampaignBody.extend({ expected_version: z.number().int().min(1) });

/** What the run is doing and why (src/campaigns/runExplanation.ts `explainCampaignRun`). */
export const runExplanationRecord = z.object({
  state: z.enum(RUN_STATES),
  headline: z.string(),
  details: z.array(z.string()),
  held_reason: z.string().nullable(),
  fix: z.string().nullable(),
  docs: z.string().nullable(),
  time_zone: z.string(),
  window: z.object({
    start_hour: z.number().int(),
    end_hour: z.number().int(),
    time_zone: z.string(),
    per_recipient_zone: z.boolean(),
    open: z.boolean().nullable(),
    opens_at: z.string().nullable(),
  }),
  throttle_per_minute: z.number().int(),
  remaining: z.number().int(),
  eta: z.string().nullable(),
  call_backs_owed: z.number().int().nullable(),
});

const count = z.number().int();

/** Counts by recipient state (src/campaigns/staging.ts RecipientState): each channel uses some of them; absent, none counted. */
const stateCounts = z.object({
  queued: count,
  sent: count,
  delivered: count,
  read: count,
  failed: count,
  skipped: count,
  calling: count,
  called: count,
} satisfies Record<z.infer<typeof recipientRecord>['state'], z.ZodType>).partial();

/** The public record plus what the console shows: the counters as one object, the recipients by state, the schedule, audience, template and consent pin. */
export const consoleCampaignRecord = campaignRecord.extend({
  counters: z.record(z.string(), count),
  states: stateCounts,
  schedule: z.object({
    start_at: z.string().nullable(),
    timezone: z.string(),
    throttle_per_minute: count,
    send_window_start_hour: count,
    send_window_end_hour: count,
    /** Call campaigns only: the window in each person's own zone. */
    recipient_time_zone: z.boolean().optional(),
  }),
  audience: z.object({ kind: z.enum(AUDIENCE_KINDS), tags: z.array(z.string()), contact_id_count: count, list_id: z.string().optional() }),
  template: z.object({ name: z.string(), language: z.string().nullable(), variables: z.array(z.string()) }).nullable(),
  sender_id: z.string().nullable(),
  consent: z
    .object({
      basis: z.enum(CONSENT_BASES),
      note: z.string().nullable(),
      pinned_at: z.string().nullable(),
      pinned_recipients: count.nullable(),
      checksum: z.string().nullable(),
    })
    .nullable(),
  created_by: z.object({ kind: z.enum(['api_key', 'app', 'console']), id: z.string() }),
  /** A launched campaign waiting for its scheduled start or its window: when the next send may go (ISO); null when not waiting. */
  waiting_until: z.string().nullable(),
  /** What the run is doing and why. */
  explanation: runExplanationRecord,
});

/** A list item: the record without the run's explanation (only a campaign's own read asks the run). */
export const consoleCampaignListItem = consoleCampaignRecord.omit({ explanation: true });

/** A launch answers the campaign and the notices (as the public launch). */
export const consoleLaunchedCampaign = consoleCampaignRecord.extend({ notices: launchedCampaign.shape.notices });

/** The counters over time: a point per minute in which the run counted, each the recipients by state. */
export const campaignTimelineRecord = z.object({
  campaign_id: z.string(),
  bucket_seconds: count,
  recipients: count,
  items: z.array(stateCounts.extend({ at: z.string() })),
});

/** The workspace's campaign defaults as in force, with the stored zone (null: the workspace's own). */
export const campaignSettingsRecord = z.object({
  throttle_per_minute: count,
  send_window_start_hour: count,
  send_window_end_hour: count,
  timezone: z.string().nullable(),
  effective_timezone: z.string(),
  max_recipients_per_campaign: count,
});
