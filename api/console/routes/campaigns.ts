import { z } from 'zod';
import { findCampaign, type CampaignDoc } from '../../../src/campaigns/campaign';
import { controlCampaign, type ControlAction } from '../../../src/campaigns/control';
import { createCampaign } from '../../../src/campaigns/createCampaign';
import { evaluateCampaign } from '../../../src/campaigns/evaluate';
import { CAMPAIGN_LIMITS } from '../../../src/campaigns/limits';
import { listCampaigns, recipientPage } from '../../../src/campaigns/listing';
import { campaignCallProgress, campaignCounts, campaignTimeline, type CampaignCounts } from '../../../src/campaigns/progress';
import { buildOutcomeReport, streamOutcomesCsv } from '../../../src/campaigns/voice/outcomes/served';
import { explainCampaignRun } from '../../../src/campaigns/runExplanation';
import { readRunSnapshot } from '../../../src/campaigns/runSnapshot';
import { campaignSettingsOf, type WorkspaceWithCampaignSettings } from '../../../src/campaigns/settings';
import { updateWorkspaceSettings } from '../../../src/workspaces/workspaceActions';
import { cursorSecret } from '../../../src/auth/secrets';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { CursorCodec, page } from '../../pagination';
import { route, type RouteContext, type RouteDef } from '../../route';
import { validationError } from '../../validation';
import { CAMPAIGN_NOT_FOUND, CONTROL_SUMMARIES, answerControl, answerCreate, requireCallCampaign } from '../../shared/campaignAnswers';
import { campaignView, controlCampaignBody, evaluateResult, launchCampaignBody, outcomeReport, recipientRecord, recipientView } from '../../shared/campaigns.schema';
import { CONSOLE_PREFIX, workspaceParams, type ConsoleDeps } from '../deps';
import {
  campaignSettingsBody,
  campaignSettingsRecord,
  campaignTimelineRecord,
  consoleCampaignListItem,
  consoleCampaignParams,
  consoleCampaignRecord,
  consoleCreateCampaignBody,
  consoleLaunchedCampaign,
  consoleListCampaignsQuery,
  consoleRecipientsQuery,
} from './campaigns.schema';

/**
 * The console's campaigns (docs/console.md, "Campaigns"): the public routes' use cases
 * (src/campaigns/control.ts, evaluate.ts, listing.ts) acting for the workspace without an API
 * key, plus what only the console has: archive, the counters over time, and the workspace's
 * campaign defaults.
 */

const BASE = `${CONSOLE_PREFIX}/workspaces/{workspace_id}/campaigns`;
const ONE = `${BASE}/{campaign_id}`;

/** The public record plus what the console shows: the counters as one object, the recipients by state, the schedule, audience, template and consent pin. */
export function consoleCampaignView(c: CampaignDoc & Partial<Pick<CampaignCounts, 'states'>>): z.infer<typeof consoleCampaignListItem> {
  return {
    ...campaignView(c),
    // Every counter the read model has (call campaigns add their own), for a page to draw generically.
    counters: { ...c.counters },
    // The recipients by state (the counters are a funnel, so they do not add up to the recipients).
    states: c.states ?? {},
    schedule: {
      start_at: formatTimestamp(c.schedule.start_at),
      timezone: c.schedule.timezone,
      throttle_per_minute: c.schedule.throttle_per_minute,
      send_window_start_hour: c.schedule.send_window_start_hour,
      send_window_end_hour: c.schedule.send_window_end_hour,
      // Call campaigns only (beyond the contract): the window in each person's own zone.
      ...(c.channel === 'voice' ? { recipient_time_zone: c.schedule.recipient_time_zone ?? false } : {}),
    },
    audience: c.audience,
    template: c.template,
    sender_id: c.sender_id,
    consent: c.consent && {
      basis: c.consent.basis,
      note: c.consent.note,
      pinned_at: formatTimestamp(c.consent.pin?.pinned_at ?? null),
      pinned_recipients: c.consent.pin?.recipients ?? null,
      checksum: c.consent.pin?.checksum ?? null,
    },
    created_by: c.created_by,
  };
}

const settingsView = (w: WorkspaceWithCampaignSettings): z.infer<typeof campaignSettingsRecord> => {
  const effective = campaignSettingsOf(w);
  return {
    throttle_per_minute: effective.throttle_per_minute,
    send_window_start_hour: effective.send_window_start_hour,
    send_window_end_hour: effective.send_window_end_hour,
    /** As stored: null follows the workspace's zone. */
    timezone: w.campaign_settings?.timezone ?? null,
    effective_timezone: effective.timezone,
    max_recipients_per_campaign: effective.max_recipients_per_campaign,
  };
};

const CONSOLE_LIST = 'console_campaigns';
const CONSOLE_RECIPIENTS = 'console_campaign_recipients';

export function campaignConsoleRoutes(deps: ConsoleDeps): RouteDef[] {
  const cursors = new CursorCodec(cursorSecret(deps.config));
  const controlDeps = () => ({ db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE, events: deps.events, now: deps.now, audiences: deps.audiences });
  /**
   * The record with its counters, for a call campaign its call progress (dialled, answered, …),
   * and what the run is doing and why (`explanation`). `askRun`: the read asks a sending
   * campaign's run for its state (held and why); the answers to a control leave it out, so a
   * launch or pause never waits on the run's query.
   */
  const withCounters = async (ctx: RouteContext, c: CampaignDoc, askRun = false) => {
    const counts = await campaignCounts(deps.db, c);
    const calls = c.channel === 'voice' ? await campaignCallProgress(deps.db, c._id) : undefined;
    const run = askRun && (c.status === 'running' || c.status === 'scheduled') ? await readRunSnapshot(deps.temporal, c._id) : null;
    const explanation = explainCampaignRun({ campaign: c, ...counts, calls, run, workspaceZone: ctx.state.workspace!.timezone, now: deps.now() });
    return { ...consoleCampaignView({ ...c, ...counts, ...(calls ? { calls } : {}) }), explanation };
  };
  const notFound = { campaign_id: CAMPAIGN_NOT_FOUND };

  async function campaignOf(ctx: RouteContext, id: string): Promise<CampaignDoc> {
    const campaign = await findCampaign(deps.db, ctx.state.workspace!._id, id);
    if (!campaign) throw new ApiError('not_found', CAMPAIGN_NOT_FOUND);
    return campaign;
  }

  const control = (ctx: RouteContext, campaignId: string, action: ControlAction, request: { expected_version?: number; confirm_recipients?: number | null }) =>
    controlCampaign(controlDeps(), { tenantId: ctx.state.workspace!._id, campaignId, action, request }).then(answerControl);

  const routes: RouteDef[] = [
    route({
      method: 'post',
      path: BASE,
      operationId: 'createConsoleCampaign',
      summary:
        'Create a draft (version 1) that messages nobody, as POST /api/v1/campaigns does: the same body, rules and refusals (400 `template_not_found`, `invalid_argument`, `unknown_variable` with `field`). The audience may also be an uploaded list (`kind: uploaded_list`, `list_id`), whose columns are the `{{variables}}`. Recorded as created by the console.',
      params: workspaceParams({}),
      body: consoleCreateCampaignBody,
      response: { status: 201, description: 'The draft, with what its run will do.', schema: consoleCampaignRecord },
      errors: ['not_found'],
      handler: async (ctx, { body }) => {
        const created = answerCreate(await createCampaign(deps.db, body, { workspace: ctx.state.workspace!, createdBy: { kind: 'console', id: 'console' }, now: deps.now() }));
        ctx.status = 201;
        ctx.body = await withCounters(ctx, created.campaign);
      },
    }),
    route({
      method: 'get',
      path: BASE,
      operationId: 'listConsoleCampaigns',
      summary: 'The workspace’s campaigns with live counters, most recently changed first; `status` for one status, `include_archived` to show archived ones with the rest.',
      params: workspaceParams({}),
      query: consoleListCampaignsQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: z.object({ items: z.array(consoleCampaignListItem), next_cursor: z.string().nullable() }) },
      errors: ['not_found'],
      handler: async (ctx, { query: { limit, cursor, status, include_archived: includeArchived } }) => {
        const tenantId = ctx.state.workspace!._id;
        let after: { updatedAt: Date; id: string } | null = null;
        if (cursor) {
          const [updatedAt, id] = cursors.decode(cursor, tenantId, CONSOLE_LIST) as [string, string];
          after = { updatedAt: new Date(updatedAt), id };
        }
        const docs = await listCampaigns(deps.db, tenantId, { ...(status ? { status } : {}), includeArchived, after, limit });
        ctx.body = page(docs, limit, consoleCampaignView, (last) => cursors.encode(tenantId, CONSOLE_LIST, [last.updated_at.toISOString(), last._id]));
      },
    }),
    route({
      method: 'get',
      path: ONE,
      operationId: 'getConsoleCampaign',
      summary: 'One campaign with its live counters, schedule, audience, template and consent pin, and `explanation`: what its run is doing and why (sending, waiting for its window, held, paused, settling), times in the workspace’s zone.',
      params: consoleCampaignParams,
      notFound,
      response: { status: 200, description: 'The campaign.', schema: consoleCampaignRecord },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        ctx.body = await withCounters(ctx, await campaignOf(ctx, params.campaign_id), true);
      },
    }),
    route({
      method: 'post',
      path: `${ONE}/evaluate`,
      operationId: 'evaluateConsoleCampaign',
      summary: 'Dry-run the launch checks, as the public evaluate; changes nothing.',
      params: consoleCampaignParams,
      notFound,
      response: { status: 200, description: 'The evaluate result.', schema: evaluateResult },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        const campaign = await campaignOf(ctx, params.campaign_id);
        ctx.body = (await evaluateCampaign(deps.db, campaign, ctx.state.workspace!, { audiences: deps.audiences })).result;
      },
    }),
    route({
      method: 'post',
      path: `${ONE}/launch`,
      operationId: 'launchConsoleCampaign',
      summary: 'Launch a draft or relaunch a paused campaign: the public launch’s checks, order and refusals.',
      params: consoleCampaignParams,
      notFound,
      body: launchCampaignBody,
      response: { status: 200, description: 'The campaign, running or scheduled, with `notices` (`allowance_spill`, `window_closed`).', schema: consoleLaunchedCampaign },
      errors: ['not_found', 'conflict', 'failed_precondition'],
      handler: async (ctx, { params, body }) => {
        const done = await control(ctx, params.campaign_id, 'launch', body);
        ctx.body = { ...(await withCounters(ctx, done.campaign)), notices: done.notices };
      },
    }),
    ...(['pause', 'resume', 'cancel'] as const).map((action) =>
      route({
        method: 'post',
        path: `${ONE}/${action}`,
        operationId: `${action}ConsoleCampaign`,
        summary: `${CONTROL_SUMMARIES[action]} Takes \`expected_version\`, as the public route.`,
        params: consoleCampaignParams,
        notFound,
        body: controlCampaignBody,
        response: { status: 200, description: 'The campaign.', schema: consoleCampaignRecord },
        errors: ['not_found', 'conflict', 'failed_precondition'],
        handler: async (ctx, { params, body }) => {
          ctx.body = await withCounters(ctx, (await control(ctx, params.campaign_id, action, body)).campaign);
        },
      }),
    ),
    route({
      method: 'post',
      path: `${ONE}/archive`,
      operationId: 'archiveConsoleCampaign',
      summary:
        'Hide a finished (completed, failed or cancelled) campaign from the default list; a new version. No body: a finished campaign changes in no other way. Archiving an archived campaign changes nothing.',
      params: consoleCampaignParams,
      notFound,
      response: { status: 200, description: 'The campaign.', schema: consoleCampaignRecord },
      errors: ['not_found', 'conflict', 'failed_precondition'],
      handler: async (ctx, { params }) => {
        ctx.body = await withCounters(ctx, (await control(ctx, params.campaign_id, 'archive', {})).campaign);
      },
    }),
    route({
      method: 'get',
      path: `${ONE}/recipients`,
      operationId: 'listConsoleCampaignRecipients',
      summary: 'Each staged person in audience order with their state and its reason, as the public route.',
      params: consoleCampaignParams,
      notFound,
      query: consoleRecipientsQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: z.object({ items: z.array(recipientRecord), next_cursor: z.string().nullable() }) },
      errors: ['not_found'],
      handler: async (ctx, { params, query: { limit, cursor } }) => {
        const campaign = await campaignOf(ctx, params.campaign_id);
        const list = `${CONSOLE_RECIPIENTS}:${campaign._id}`;
        const from = cursor ? Number((cursors.decode(cursor, campaign.tenant_id, list) as [unknown])[0]) : 0;
        const { docs, next } = await recipientPage(deps.db, campaign, from, limit);
        ctx.body = { items: docs.map(recipientView), next_cursor: next === null ? null : cursors.encode(campaign.tenant_id, list, [next]) };
      },
    }),
    route({
      method: 'get',
      path: `${ONE}/timeline`,
      operationId: 'getConsoleCampaignTimeline',
      summary:
        'The counters over time: a point per minute in which the run counted (after each batch, at the end, while settling), each the recipients by state as last counted in that minute. Minutes with no count are left out (nothing was sent: paused, waiting for the window).',
      params: consoleCampaignParams,
      notFound,
      response: { status: 200, description: '`{campaign_id, bucket_seconds, recipients, items}`.', schema: campaignTimelineRecord },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        const campaign = await campaignOf(ctx, params.campaign_id);
        ctx.body = { campaign_id: campaign._id, bucket_seconds: 60, recipients: campaign.recipients, items: await campaignTimeline(deps.db, campaign._id) };
      },
    }),
    route({
      method: 'get',
      path: `${ONE}/outcomes`,
      operationId: 'getConsoleCampaignOutcomes',
      summary: 'A call campaign\'s outcome report, as GET /api/v1/campaigns/{campaign_id}/outcomes gives it. 412 not_a_call_campaign on a WhatsApp campaign.',
      params: consoleCampaignParams,
      notFound,
      response: { status: 200, description: 'The outcome report.', schema: outcomeReport },
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { params }) => {
        const campaign = requireCallCampaign(await campaignOf(ctx, params.campaign_id));
        ctx.body = await buildOutcomeReport(deps.db, campaign, deps.now());
      },
    }),
    route({
      method: 'get',
      path: `${ONE}/outcomes.csv`,
      operationId: 'getConsoleCampaignOutcomesCsv',
      summary: 'A call campaign\'s outcomes as CSV, as GET /api/v1/campaigns/{campaign_id}/outcomes.csv gives it (one row per person, evidence columns, UTF-8 with a BOM). 412 not_a_call_campaign on a WhatsApp campaign.',
      params: consoleCampaignParams,
      notFound,
      response: { status: 200, description: 'The CSV.', mediaType: 'text/csv', schema: z.string() },
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { params }) => {
        const campaign = requireCallCampaign(await campaignOf(ctx, params.campaign_id));
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${campaign._id}-outcomes.csv"`);
        ctx.body = streamOutcomesCsv(deps.db, campaign);
      },
    }),
    route({
      method: 'get',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/campaign-settings`,
      operationId: 'getCampaignSettings',
      summary: 'The workspace’s campaign defaults: throttle, send window, time zone, the plan’s per-campaign recipient limit.',
      params: workspaceParams({}),
      response: { status: 200, description: 'The settings.', schema: campaignSettingsRecord },
      errors: ['not_found'],
      handler: (ctx) => {
        ctx.body = settingsView(ctx.state.workspace!);
      },
    }),
    route({
      method: 'patch',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/campaign-settings`,
      operationId: 'updateCampaignSettings',
      summary: 'Change any of the campaign defaults; drafts created afterwards take them (existing campaigns keep theirs).',
      params: workspaceParams({}),
      body: campaignSettingsBody,
      response: { status: 200, description: 'The settings.', schema: campaignSettingsRecord },
      errors: ['not_found'],
      handler: async (ctx, { body }) => {
        const current = campaignSettingsOf(ctx.state.workspace!);
        const start = body.send_window_start_hour ?? current.send_window_start_hour;
        const end = body.send_window_end_hour ?? current.send_window_end_hour;
        if (start >= end) {
          throw validationError([
            {
              loc: ['body', body.send_window_end_hour === undefined ? 'send_window_start_hour' : 'send_window_end_hour'],
              msg: `The send window ${start}:00 to ${end}:00 has no open hour; the end must come after the start (within ${CAMPAIGN_LIMITS.sendWindowFloorHour}:00 to ${CAMPAIGN_LIMITS.sendWindowCeilingHour}:00).`,
              type: 'send_window_empty',
            },
          ]);
        }
        const updated = await updateWorkspaceSettings(deps.db, ctx.state.workspace!._id, 'campaign_settings', body, deps.now());
        ctx.body = settingsView(updated!);
      },
    }),
  ];
  return routes;
}
