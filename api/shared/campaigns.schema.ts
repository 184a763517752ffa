import { z } from 'zod';
import { metadataSchema } from '../../src/domain/metadata';
import { CAMPAIGN_CHANNELS, CAMPAIGN_ID_PATTERN, CAMPAIGN_STATUSES, CONSENT_BASES, EXCLUSION_REASONS, type CampaignDoc } from '../../src/campaigns/campaign';
import { campaignChannel } from '../../src/campaigns/channels';
import { CAMPAIGN_LIMITS as L } from '../../src/campaigns/limits';
import type { CampaignRecipientDoc } from '../../src/campaigns/staging';
import { ZERO_CALL_PROGRESS, type CallProgress } from '../../src/campaigns/progress';
import { isTimeZone } from '../../src/workspaces/workspaces';
import { formatTimestamp } from '../format';
import { pageQuery } from '../pagination';
import { captureOut, nullableCapture, resultSummaryShape } from './calls.schema';

/** Request and response shapes of the campaign routes (campaigns-tickets-dues §2, §4, §8). */

const variable = z.union([z.string(), z.number().transform(String)]);

/** The audience's lists, shared with the console's create (which adds `uploaded_list`). */
export const audienceLists = {
  contact_ids: z.array(z.string().min(1).max(64)).max(L.audienceIds).default([]),
  tags: z.array(z.string().min(1).max(64)).max(L.segmentTags).default([]),
};

/** With no tag, "a contact needs every tag" would be every contact: refused, never guessed. */
export const segmentNeedsTag: [(a: { kind: string; tags: string[] }) => boolean, { message: string; path: string[] }] = [
  (a) => a.kind !== 'segment' || a.tags.some((t) => t.trim() !== ''),
  { message: 'A segment needs at least one tag.', path: ['tags'] },
];

export const createCampaignBody = z.object({
  name: z.string().min(1).max(L.nameMaxChars),
  channel: z.enum(CAMPAIGN_CHANNELS).default('whatsapp'),
  audience: z
    .object({
      // Uploaded lists are console-only (campaigns-tickets-dues §4): named here so the refusal says so.
      kind: z
        .enum(['contact_ids', 'segment'], {
          error: (issue) =>
            issue.input === 'uploaded_list'
              ? 'Uploaded lists are console-only: create the campaign in the console, or use contact_ids or segment.'
              : 'Expected contact_ids or segment.',
        })
        .default('contact_ids'),
      ...audienceLists,
    })
    .refine(...segmentNeedsTag),
  template: z
    .object({
      name: z.string().min(1).max(L.templateNameMaxChars),
      language: z.string().max(L.templateLanguageMaxChars).nullable().default(null),
      variables: z.array(variable).max(L.templateVariables).default([]),
    })
    .nullable()
    .default(null),
  agent_id: z.string().min(1).max(64).nullable().default(null),
  purpose: z.string().max(L.purposeMaxChars).nullable().default(null),
  script: z.string().max(L.scriptMaxChars).nullable().default(null),
  capture: nullableCapture,
  call_back_incomplete: z.boolean().default(false),
  schedule: z
    .object({
      start_at: z.iso
        .datetime({ offset: true })
        .transform((s) => new Date(s))
        .nullable()
        .optional(),
      timezone: z.string().max(L.timezoneMaxChars).refine(isTimeZone, 'an IANA time zone, e.g. Asia/Kolkata').nullable().optional(),
      throttle_per_minute: z.number().int().min(L.throttleMin).max(L.throttleMax).nullable().optional(),
      send_window_start_hour: z.number().int().min(0).max(23).nullable().optional(),
      send_window_end_hour: z.number().int().min(1).max(24).nullable().optional(),
      /** Beyond the contract (call campaigns): hold each call to the window in the person's own zone, from their number's country. */
      recipient_time_zone: z.boolean().nullable().optional(),
    })
    .default({}),
  consent: z
    .object({ basis: z.enum(CONSENT_BASES), note: z.string().max(L.consentNoteMaxChars).nullable().default(null) })
    .nullable()
    .default(null),
  sender_id: z.string().min(1).max(64).nullable().default(null),
  metadata: metadataSchema.default({}),
});

export const campaignParams = z.object({ campaign_id: z.string().regex(CAMPAIGN_ID_PATTERN) });

/** launch, pause, resume and cancel: the version the caller read (campaigns-tickets-dues §4). */
export const controlCampaignBody = z.object({ expected_version: z.number().int().min(1) });
export const launchCampaignBody = controlCampaignBody.extend({ confirm_recipients: z.number().int().min(0).nullable().default(null) });

export const listRecipientsQuery = pageQuery(L.recipientsMaxLimit, L.recipientsDefaultLimit);

export const listCampaignsQuery = pageQuery(L.listMaxLimit, L.listDefaultLimit).extend({ status: z.enum(CAMPAIGN_STATUSES).optional() });

const count = z.number().int();
const excludedCounts = z.partialRecord(z.enum(EXCLUSION_REASONS), count);

const callProgressRecord = z.object({
  dialled: count,
  answered: count,
  conversation: count,
  completed: count,
  call_backs: count,
  live: count,
});

export const campaignRecord = z.object({
  campaign_id: z.string(),
  name: z.string(),
  channel: z.enum(CAMPAIGN_CHANNELS),
  type: z.enum(['whatsapp_broadcast', 'voice_batch']),
  status: z.enum(CAMPAIGN_STATUSES),
  version: count,
  recipients: count,
  sent: count,
  delivered: count,
  read: count,
  failed: count,
  skipped: count,
  excluded: excludedCounts,
  consent_basis: z.enum(CONSENT_BASES).nullable(),
  created_at: z.string().nullable(),
  launched_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  capture: captureOut.nullable(),
  /** Beyond the contract's table: when the record last changed (the list's order). */
  updated_at: z.string().nullable(),
  /** Beyond the contract's table: a call campaign's call progress (src/campaigns/progress.ts); absent on WhatsApp campaigns. */
  calls: callProgressRecord.optional(),
});

/** A launch's notice and an evaluation's finding: one shape. */
const notice = z.object({
  code: z.string(),
  severity: z.enum(['block', 'warn', 'info']),
  message: z.string(),
  fix: z.string(),
  docs: z.string(),
  count,
});

/** A launch answers the Campaign and, beyond it, the notices (`allowance_spill`). */
export const launchedCampaign = campaignRecord.extend({ notices: z.array(notice) });

/** A call campaign person's outcome merged across their calls (src/campaigns/voice/mergedOutcome.ts). */
export const mergedOutcomeRecord = z.object({
  ...resultSummaryShape,
  /** Beyond the contract: where each answer came from (the person's words, the transcript turn, the call). */
  evidence: z.record(z.string(), z.object({ quote: z.string(), turn: count, call_id: z.string() })),
  captured: count,
  expected: count,
  missing_required: z.array(z.string()),
  /** The call the disposition and summary come from. */
  call_id: z.string(),
});

const recipientCallRecord = z.object({
  call_id: z.string(),
  kind: z.enum(['first', 'call_back']),
  placed_at: z.string().nullable(),
  answered: z.boolean().nullable(),
  disposition: z.string().nullable(),
});

export const recipientRecord = z.object({
  /** The recipient's place in the staged audience (from 0). */
  position: count,
  /** Null for a person of an uploaded list (a console-only audience), who has `row` instead. */
  contact_id: z.string().nullable(),
  /** Uploaded lists only: the file's line where the person's row starts (the header is line 1). */
  row: count.optional(),
  to: z.string(),
  name: z.string().nullable(),
  /** Call campaigns: `queued`, `calling` (a call live or awaited, or a call-back owed), `called` (final), `failed`, `skipped`. */
  state: z.enum(['queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'calling', 'called']),
  /** Why a `skipped` or `failed` recipient ended so (`suppressed`, `cancelled`, `provider_error`, `outcome_unknown`); null otherwise. */
  reason: z.string().nullable(),
  message_id: z.string().nullable(),
  state_at: z.string().nullable(),
  /** Call campaigns only: the person's calls in order (a first call, at most one call-back). */
  calls: z.array(recipientCallRecord).optional(),
  /** Call campaigns only: the merged outcome, null until a call's result is in. */
  outcome: mergedOutcomeRecord.nullable().optional(),
});

export function recipientView(r: CampaignRecipientDoc): z.infer<typeof recipientRecord> {
  const view: z.infer<typeof recipientRecord> = {
    position: r.position,
    contact_id: r.contact_id,
    ...(r.row !== undefined ? { row: r.row } : {}),
    to: r.to,
    name: r.name,
    state: r.state,
    reason: r.skip_reason,
    message_id: r.message_id,
    state_at: formatTimestamp(r.state_at),
  };
  if (r.calls === undefined) return view;
  return {
    ...view,
    calls: r.calls.map((c) => ({ call_id: c.call_id, kind: c.kind, placed_at: formatTimestamp(c.placed_at), answered: c.answered, disposition: c.disposition })),
    outcome: r.outcome ?? null,
  };
}

const countsSummary = z.object({ kind: z.literal('counts'), counts: z.record(z.string(), count), mean: z.number().nullable().optional() });
const distributionSummary = z.object({
  kind: z.literal('distribution'),
  count,
  min: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
  median: z.number().nullable(),
  buckets: z.array(z.object({ from: z.number(), to: z.number(), count })),
});
const samplesSummary = z.object({ kind: z.literal('samples'), samples: z.array(z.object({ position: count, value: z.string() })) });

/** GET …/outcomes (structure ours: docs/campaigns.md). */
export const outcomeReport = z.object({
  campaign_id: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  totals: z.object({
    recipients: count,
    finished: count,
    outstanding: count,
    failed: count,
    skipped: count,
    calls: count,
    call_backs: count,
    answered: count,
    completed: count,
    success: count,
  }),
  funnel: z.array(z.object({ stage: z.enum(['staged', 'dialled', 'answered', 'conversation', 'completed']), count, rate: z.number() })),
  dispositions: z.record(z.string(), count),
  fields: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      type: z.string(),
      display: z.enum(['bars', 'donut', 'stat', 'list', 'hidden']),
      answered: count,
      summary: z.union([countsSummary, distributionSummary, samplesSummary]).nullable(),
    }),
  ),
  timeline: z.array(z.object({ hour: z.string(), calls: count, answered: count, completed: count })),
  generated_at: z.string(),
});

export const evaluateResult = z.object({
  eligible: count,
  total_rows: count,
  excluded: excludedCounts,
  /** A contact by `contact_id`; a person of an uploaded list (console-only) by `row`, the file's line. */
  invalid_rows: z.array(z.object({ reason: z.enum(EXCLUSION_REASONS), contact_id: z.string().optional(), row: count.optional(), field: z.string().optional() })),
  sample: z.array(z.object({ to: z.string(), name: z.string().nullable(), variables: z.record(z.string(), z.string()) })),
  findings: z.array(notice),
  checksum: z.string(),
});

/** The contract's Campaign; `metadata`, the audience and the request's settings stay inside. */
export function campaignView(c: CampaignDoc & { calls?: CallProgress }): z.infer<typeof campaignRecord> {
  return {
    campaign_id: c._id,
    name: c.name,
    channel: c.channel,
    type: c.type,
    status: c.status,
    version: c.version,
    recipients: c.recipients,
    ...c.counters,
    excluded: c.excluded,
    consent_basis: c.consent?.basis ?? null,
    created_at: formatTimestamp(c.created_at),
    launched_at: formatTimestamp(c.launched_at),
    completed_at: formatTimestamp(c.completed_at),
    capture: c.capture,
    updated_at: formatTimestamp(c.updated_at),
    ...(campaignChannel(c.channel).countsCalls ? { calls: c.calls ?? ZERO_CALL_PROGRESS } : {}),
  };
}
