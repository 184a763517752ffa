import { z } from 'zod';
import { CAMPAIGN_LIMITS as L } from '../../../src/campaigns/limits';
import { isTimeZone } from '../../../src/workspaces/workspaces';
import { AUDIENCE_KINDS } from '../../../src/campaigns/campaign';
import { LIST_ID_PATTERN } from '../../../src/lists/listStore';
import { RUN_STATES } from '../../../src/campaigns/runExplanation';
import { audienceLists, campaignParams, campaignRecord, createCampaignBody, launchedCampaign, listCampaignsQuery, listRecipientsQuery, segmentNeedsTag } from '../../v1/routes/campaigns.schema';
import { workspaceParams } from '../deps';

/**
 * Request shapes of the console's campaign routes. The campaign rules are the public API's
 * (api/v1/routes/campaigns.schema.ts): the same id rule, list limits and control bodies.
 */

/** The public campaign id rule under the workspace: an id that cannot exist is a 404 without a lookup. */
export const consoleCampaignParams = workspaceParams(campaignParams.shape);

const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The public list's query plus `include_archived` (without `status`, archived ones too). */
export const consoleListCampaignsQuery = listCampaignsQuery.extend({ include_archived: queryBoolean.default(false) });

export const consoleRecipientsQuery = listRecipientsQuery;

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

/**
 * One campaign as the console answers it: the public record (a call campaign's `calls`
 * included) and its `explanation`. The console's other fields (counters, states, schedule,
 * audience, template, consent) are left open here.
 */
export const consoleCampaignRecord = campaignRecord.extend({ explanation: runExplanationRecord }).loose();
export const consoleLaunchedCampaign = launchedCampaign.extend({ explanation: runExplanationRecord }).loose();
