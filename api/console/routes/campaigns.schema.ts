import { z } from 'zod';
import { CAMPAIGN_LIMITS as L } from '../../../src/campaigns/limits';
import { isTimeZone } from '../../../src/workspaces/workspaces';
import { campaignParams, createCampaignBody, listCampaignsQuery, listRecipientsQuery } from '../../v1/routes/campaigns.schema';
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
 * The console's create takes the public request as it is (the audience kinds contact ids and
 * segment, the same limits and refusals); console-only audience kinds extend it here.
 */
export const consoleCreateCampaignBody = createCampaignBody;

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
