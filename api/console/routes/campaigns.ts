import { z } from 'zod';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import { campaignChannel } from '../../../src/campaigns/channels';
import { controlCampaign, type ControlAction } from '../../../src/campaigns/control';
import { createCampaign } from '../../../src/campaigns/createCampaign';
import { duplicateCampaign, editDraft, requestOf } from '../../../src/campaigns/editDraft';
import { evaluateCampaign } from '../../../src/campaigns/evaluate';
import { CAMPAIGN_LIMITS } from '../../../src/campaigns/limits';
import { listCampaigns } from '../../../src/campaigns/listing';
import { campaignCounts, campaignTimeline, channelCallProgress, type CampaignCounts } from '../../../src/campaigns/progress';
import { buildOutcomeReport } from '../../../src/campaigns/voice/outcomes/served';
import { explainCampaignRun, runWaitsUntil } from '../../../src/campaigns/runExplanation';
import { readRunSnapshot } from '../../../src/campaigns/runSnapshot';
import { previewCampaign } from '../../../src/campaigns/preview';
import { recipientReportPage, recipientStatusWords, repliesOf, streamRecipientReportCsv } from '../../../src/campaigns/report';
import { campaignSettingsOf, type WorkspaceWithCampaignSettings } from '../../../src/campaigns/settings';
import { updateWorkspaceSettings } from '../../../src/workspaces/workspaceActions';
import { cursorSecret } from '../../../src/auth/secrets';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { CursorCodec, page, pageOf } from '../../pagination';
import type { RouteDef } from '../../route';
import type { WorkspaceDoc } from '../../../src/db/collections';
import { validationError } from '../../validation';
import { CAMPAIGN_NOT_FOUND, CONTROL_SUMMARIES, answerControl, answerCreate, campaignOf, requireCallCampaign, sendOutcomesCsv } from '../../shared/campaignAnswers';
import { campaignParams, campaignView, controlCampaignBody, evaluateResult, launchCampaignBody, outcomeReport, recipientView } from '../../shared/campaigns.schema';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import {
  campaignSettingsBody,
  campaignSettingsRecord,
  campaignTimelineRecord,
  consoleCampaignListItem,
  consoleCampaignRecord,
  consoleCreateCampaignBody,
  consoleLaunchedCampaign,
  consoleListCampaignsQuery,
  campaignPreviewRecord,
  consoleRecipientRecord,
  consoleRecipientsQuery,
  campaignRequestRecord,
  editCampaignBody,
  recipientsCsvQuery,
} from './campaigns.schema';

const ws = workspaceGroup();
/** `campaigns/{campaign_id}…`, by the public campaign id rule: an id that cannot exist is a 404 without a lookup. */
const campaign = ws.record('campaign_id', CAMPAIGN_NOT_FOUND, campaignParams.shape.campaign_id);

/**
 * The console's campaigns (docs/console.md, "Campaigns"): the public routes' use cases
 * (src/campaigns/control.ts, evaluate.ts, listing.ts) acting for the workspace without an API
 * key, plus what only the console has: archive, the counters over time, and the workspace's
 * campaign defaults.
 */

/** The public record plus what the console shows: the counters as one object, the recipients by state, the schedule, audience, template and consent pin. */
export function consoleCampaignView(c: CampaignDoc & Partial<Pick<CampaignCounts, 'states'>>, now: Date): z.infer<typeof consoleCampaignListItem> {
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
      // Only the channel that takes it (call campaigns; beyond the contract): the window in each person's own zone.
      ...(campaignChannel(c.channel).ownFields.includes('schedule.recipient_time_zone') ? { recipient_time_zone: c.schedule.recipient_time_zone ?? false } : {}),
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
    waiting_until: formatTimestamp(runWaitsUntil(c, now)),
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
  const withCounters = async (workspace: WorkspaceDoc, c: CampaignDoc, askRun = false) => {
    const counts = await campaignCounts(deps.db, c);
    const calls = await channelCallProgress(deps.db, c);
    const run = askRun && (c.status === 'running' || c.status === 'scheduled') ? await readRunSnapshot(deps.temporal, c._id) : null;
    const explanation = explainCampaignRun({ campaign: c, ...counts, calls, run, workspaceZone: workspace.timezone, now: deps.now() });
    return { ...consoleCampaignView({ ...c, ...counts, ...(calls ? { calls } : {}) }, deps.now()), explanation };
  };

  const control = (tenantId: string, campaignId: string, action: ControlAction, request: { expected_version?: number; confirm_recipients?: number | null }) =>
    controlCampaign(controlDeps(), { tenantId, campaignId, action, request }).then(answerControl);

  const routes: RouteDef[] = [
    ws.post('createConsoleCampaign', 'campaigns', {
      summary:
        'Create a draft (version 1) that messages nobody, as POST /api/v1/campaigns does: the same body, rules and refusals (400 `template_not_found`, `invalid_argument`, `unknown_variable` with `field`). The audience may also be an uploaded list (`kind: uploaded_list`, `list_id`), whose columns are the `{{variables}}`. Recorded as created by the console.',
      body: consoleCreateCampaignBody,
      response: { status: 201, description: 'The draft, with what its run will do.', schema: consoleCampaignRecord },
      handler: async (ctx, { body, workspace }) => {
        const created = answerCreate(await createCampaign(deps.db, body, { workspace, createdBy: { kind: 'console', id: 'console' }, now: deps.now() }));
        return withCounters(workspace, created.campaign);
      },
    }),
    ws.get('listConsoleCampaigns', 'campaigns', {
      summary: 'The workspace’s campaigns with live counters, most recently changed first; `status` for one status, `include_archived` to show archived ones with the rest.',
      query: consoleListCampaignsQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: pageOf(consoleCampaignListItem) },
      handler: async (ctx, { query: { limit, cursor, status, include_archived: includeArchived }, tenantId }) => {
        let after: { updatedAt: Date; id: string } | null = null;
        if (cursor) {
          const [updatedAt, id] = cursors.decode(cursor, tenantId, CONSOLE_LIST) as [string, string];
          after = { updatedAt: new Date(updatedAt), id };
        }
        const docs = await listCampaigns(deps.db, tenantId, { ...(status ? { status } : {}), includeArchived, after, limit });
        const now = deps.now();
        return page(docs, limit, (d) => consoleCampaignView(d, now), (last) => cursors.encode(tenantId, CONSOLE_LIST, [last.updated_at.toISOString(), last._id]));
      },
    }),
    campaign.get('getConsoleCampaign', 'campaigns/{campaign_id}', {
      summary: 'One campaign with its live counters, schedule, audience, template and consent pin, and `explanation`: what its run is doing and why (sending, waiting for its window, held, paused, settling), times in the workspace’s zone.',
      response: { status: 200, description: 'The campaign.', schema: consoleCampaignRecord },
      handler: async (ctx, { params, workspace }) => withCounters(workspace, await campaignOf(deps.db, workspace._id, params.campaign_id), true),
    }),
    campaign.get('getConsoleCampaignRequest', 'campaigns/{campaign_id}/request', {
      summary: "The campaign's request as the create took it (audience ids, template and its variables, call fields, schedule as asked, consent, sender), with its version: what the edit form starts from.",
      response: { status: 200, description: '`{campaign_id, version, status, request}`.', schema: campaignRequestRecord },
      handler: async (ctx, { params, tenantId }) => {
        const c = await campaignOf(deps.db, tenantId, params.campaign_id);
        // Metadata is stored, never returned (campaigns-tickets-dues §2).
        const { metadata, schedule, ...request } = await requestOf(deps.db, c);
        void metadata;
        return {
          campaign_id: c._id,
          version: c.version,
          status: c.status,
          request: {
            ...request,
            audience: { ...request.audience, list_id: request.audience.list_id ?? null },
            schedule: {
              start_at: formatTimestamp(schedule.start_at ?? null),
              timezone: schedule.timezone ?? null,
              throttle_per_minute: schedule.throttle_per_minute ?? null,
              send_window_start_hour: schedule.send_window_start_hour ?? null,
              send_window_end_hour: schedule.send_window_end_hour ?? null,
              ...(schedule.recipient_time_zone == null ? {} : { recipient_time_zone: schedule.recipient_time_zone }),
            },
          },
        };
      },
    }),
    campaign.put('editConsoleCampaign', 'campaigns/{campaign_id}', {
      summary:
        "Edit a draft: the create's body whole (it replaces the draft's request, by the create's rules and refusals) and `expected_version` (409 `version_conflict` when it moved). Only a draft: once launched, 412 `campaign_frozen` (duplicate it instead). The channel stays.",
      body: editCampaignBody,
      response: { status: 200, description: 'The draft at its next version.', schema: consoleCampaignRecord },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { params, body, workspace }) => {
        const { expected_version: expectedVersion, ...request } = body;
        const edited = await editDraft(deps.db, { workspace, campaignId: params.campaign_id, expectedVersion, request, now: deps.now() });
        if (edited.kind === 'not_found') throw new ApiError('not_found', CAMPAIGN_NOT_FOUND);
        // A refusal (the create's rules, the version, the status) is thrown by answerCreate as the create's is.
        return withCounters(workspace, edited.kind === 'edited' ? edited.campaign : answerCreate(edited).campaign);
      },
    }),
    campaign.post('duplicateConsoleCampaign', 'campaigns/{campaign_id}/duplicate', {
      summary:
        'A new draft (version 1) with the campaign’s request, whatever its state: its audience, template or call fields, sender, schedule (a start already past dropped) and consent; named `Copy of …`. The way to change what a launched campaign sends.',
      response: { status: 201, description: 'The new draft.', schema: consoleCampaignRecord },
      handler: async (ctx, { params, workspace }) => {
        const copied = await duplicateCampaign(deps.db, {
          workspace,
          campaignId: params.campaign_id,
          createdBy: { kind: 'console', id: 'console' },
          now: deps.now(),
          nameMaxChars: CAMPAIGN_LIMITS.nameMaxChars,
        });
        if (copied.kind === 'not_found') throw new ApiError('not_found', CAMPAIGN_NOT_FOUND);
        return withCounters(workspace, answerCreate(copied).campaign);
      },
    }),
    campaign.post('evaluateConsoleCampaign', 'campaigns/{campaign_id}/evaluate', {
      summary: 'Dry-run the launch checks, as the public evaluate; changes nothing.',
      response: { status: 200, description: 'The evaluate result.', schema: evaluateResult },
      handler: async (ctx, { params, workspace }) => {
        const campaign = await campaignOf(deps.db, workspace._id, params.campaign_id);
        return (await evaluateCampaign(deps.db, campaign, workspace, { audiences: deps.audiences })).result;
      },
    }),
    campaign.post('launchConsoleCampaign', 'campaigns/{campaign_id}/launch', {
      summary: 'Launch a draft or relaunch a paused campaign: the public launch’s checks, order and refusals.',
      body: launchCampaignBody,
      response: { status: 200, description: 'The campaign, running or scheduled, with `notices` (`allowance_spill`, `window_closed`).', schema: consoleLaunchedCampaign },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { params, body, workspace }) => {
        const done = await control(workspace._id, params.campaign_id, 'launch', body);
        return { ...(await withCounters(workspace, done.campaign)), notices: done.notices };
      },
    }),
    ...(['pause', 'resume', 'cancel'] as const).map((action) =>
      campaign.post(`${action}ConsoleCampaign`, `campaigns/{campaign_id}/${action}`, {
        summary: `${CONTROL_SUMMARIES[action]} Takes \`expected_version\`, as the public route.`,
        body: controlCampaignBody,
        response: { status: 200, description: 'The campaign.', schema: consoleCampaignRecord },
        errors: ['conflict', 'failed_precondition'],
        handler: async (ctx, { params, body, workspace }) => withCounters(workspace, (await control(workspace._id, params.campaign_id, action, body)).campaign),
      }),
    ),
    campaign.post('archiveConsoleCampaign', 'campaigns/{campaign_id}/archive', {
      summary:
        'Hide a finished (completed, failed or cancelled) campaign from the default list; a new version. No body: a finished campaign changes in no other way. Archiving an archived campaign changes nothing.',
      response: { status: 200, description: 'The campaign.', schema: consoleCampaignRecord },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { params, workspace }) => withCounters(workspace, (await control(workspace._id, params.campaign_id, 'archive', {})).campaign),
    }),
    campaign.get('listConsoleCampaignRecipients', 'campaigns/{campaign_id}/recipients', {
      summary:
        'Each staged person in audience order with their state, its reason (code and words) and when, as the public route; `state` keeps one state (a page then reads up to 1,000 positions forward and may come back short, with a cursor to go on).',
      query: consoleRecipientsQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: pageOf(consoleRecipientRecord) },
      handler: async (ctx, { params, query, tenantId }) => {
        const c = await campaignOf(deps.db, tenantId, params.campaign_id);
        const of = `${CONSOLE_RECIPIENTS}:${c._id}:${query.state ?? ''}`;
        const from = query.cursor ? Number((cursors.decode(query.cursor, tenantId, of) as [unknown])[0]) : 0;
        const { docs, next } = await recipientReportPage(deps.db, c, from, query.limit, query.state);
        const replies = await repliesOf(deps.db, c, docs);
        const replyView = (r: { text: string; at: Date } | undefined) => (r ? { text: r.text, at: formatTimestamp(r.at)! } : null);
        return {
          items: docs.map((r) => ({ ...recipientView(r), status_words: recipientStatusWords(r), reply: replyView(replies.get(r.position)) })),
          next_cursor: next === null ? null : cursors.encode(tenantId, of, [next]),
        };
      },
    }),
    campaign.get('getConsoleCampaignRecipientsCsv', 'campaigns/{campaign_id}/recipients.csv', {
      summary:
        "The report as CSV, streamed: every staged person (or those in `state`) with name, phone, contact id or list row, status, reason (code and words) and the time in UTC and in the workspace's zone. UTF-8 with a BOM.",
      query: recipientsCsvQuery,
      response: { status: 200, description: 'The CSV.', mediaType: 'text/csv', schema: z.string() },
      handler: async (ctx, { params, query, tenantId, workspace }) => {
        const c = await campaignOf(deps.db, tenantId, params.campaign_id);
        ctx.type = 'text/csv; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${c._id}-recipients${query.state ? `-${query.state}` : ''}.csv"`);
        ctx.body = streamRecipientReportCsv(deps.db, c, workspace.timezone, query.state);
      },
    }),
    campaign.get('getConsoleCampaignPreview', 'campaigns/{campaign_id}/preview', {
      summary:
        "What the campaign sends and to whom: the template's text filled for a sample person (the first staged, else the first eligible evaluate finds in a draft), the sender, and the audience (tags, list or contacts by id). A call campaign's purpose and script filled the same way.",
      response: { status: 200, description: 'The preview.', schema: campaignPreviewRecord },
      handler: async (ctx, { params, workspace }) => previewCampaign(deps.db, await campaignOf(deps.db, workspace._id, params.campaign_id), workspace, { audiences: deps.audiences }),
    }),
    campaign.get('getConsoleCampaignTimeline', 'campaigns/{campaign_id}/timeline', {
      summary:
        'The counters over time: a point per minute in which the run counted (after each batch, at the end, while settling), each the recipients by state as last counted in that minute. Minutes with no count are left out (nothing was sent: paused, waiting for the window).',
      response: { status: 200, description: '`{campaign_id, bucket_seconds, recipients, items}`.', schema: campaignTimelineRecord },
      handler: async (ctx, { params, tenantId }) => {
        const campaign = await campaignOf(deps.db, tenantId, params.campaign_id);
        return { campaign_id: campaign._id, bucket_seconds: 60, recipients: campaign.recipients, items: await campaignTimeline(deps.db, campaign._id) };
      },
    }),
    campaign.get('getConsoleCampaignOutcomes', 'campaigns/{campaign_id}/outcomes', {
      summary: 'A call campaign\'s outcome report, as GET /api/v1/campaigns/{campaign_id}/outcomes gives it. 412 not_a_call_campaign on a WhatsApp campaign.',
      response: { status: 200, description: 'The outcome report.', schema: outcomeReport },
      errors: ['failed_precondition'],
      handler: async (ctx, { params, tenantId }) => buildOutcomeReport(deps.db, requireCallCampaign(await campaignOf(deps.db, tenantId, params.campaign_id)), deps.now()),
    }),
    campaign.get('getConsoleCampaignOutcomesCsv', 'campaigns/{campaign_id}/outcomes.csv', {
      summary: 'A call campaign\'s outcomes as CSV, as GET /api/v1/campaigns/{campaign_id}/outcomes.csv gives it (one row per person, evidence columns, UTF-8 with a BOM). 412 not_a_call_campaign on a WhatsApp campaign.',
      response: { status: 200, description: 'The CSV.', mediaType: 'text/csv', schema: z.string() },
      errors: ['failed_precondition'],
      handler: async (ctx, { params, tenantId }) => {
        sendOutcomesCsv(ctx, deps.db, requireCallCampaign(await campaignOf(deps.db, tenantId, params.campaign_id)));
      },
    }),
    ws.get('getCampaignSettings', 'campaign-settings', {
      summary: 'The workspace’s campaign defaults: throttle, send window, time zone, the plan’s per-campaign recipient limit.',
      response: { status: 200, description: 'The settings.', schema: campaignSettingsRecord },
      handler: (ctx, { workspace }) => settingsView(workspace),
    }),
    ws.patch('updateCampaignSettings', 'campaign-settings', {
      summary: 'Change any of the campaign defaults; drafts created afterwards take them (existing campaigns keep theirs).',
      body: campaignSettingsBody,
      response: { status: 200, description: 'The settings.', schema: campaignSettingsRecord },
      handler: async (ctx, { body, workspace }) => {
        const current = campaignSettingsOf(workspace);
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
        const updated = await updateWorkspaceSettings(deps.db, workspace._id, 'campaign_settings', body, deps.now());
        return settingsView(updated!);
      },
    }),
  ];
  return routes;
}
