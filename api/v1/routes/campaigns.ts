import { z } from 'zod';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import { createCampaign } from '../../../src/campaigns/createCampaign';
import { evaluateCampaign } from '../../../src/campaigns/evaluate';
import { page, pageOf } from '../../pagination';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteContext, type RouteDef, type RouteDefaults } from '../../route';
import { controlCampaign } from '../../../src/campaigns/control';
import { listCampaigns } from '../../../src/campaigns/listing';
import { campaignCounts, channelCallProgress } from '../../../src/campaigns/progress';
import { buildOutcomeReport } from '../../../src/campaigns/voice/outcomes/served';
import { CAMPAIGN_NOT_FOUND, CONTROL_SUMMARIES, answerControl, answerCreate, campaignOf, recipientsAnswer, requireCallCampaign, sendOutcomesCsv } from '../../shared/campaignAnswers';
import {
  campaignParams,
  campaignRecord,
  campaignView,
  controlCampaignBody,
  createCampaignBody,
  evaluateResult,
  launchCampaignBody,
  launchedCampaign,
  listCampaignsQuery,
  listRecipientsQuery,
  outcomeReport,
  recipientRecord,
} from '../../shared/campaigns.schema';

const LIST = 'campaigns';
const RECIPIENTS = 'campaign_recipients';

const readCampaigns = routeGroup({ auth: { scope: 'campaigns:read' } });
const writeCampaigns = routeGroup({ auth: { scope: 'campaigns:write' } });
/** `/campaigns/{campaign_id}…`: a campaign of the workspace, or 404. */
const ofCampaign: RouteDefaults<typeof campaignParams> = { params: campaignParams, notFound: { campaign_id: CAMPAIGN_NOT_FOUND }, errors: ['not_found'] };
const readCampaign = readCampaigns.group(ofCampaign);
const writeCampaign = writeCampaigns.group(ofCampaign);

export function campaignsRoutes(deps: Pick<PublicDeps, 'db' | 'cursors' | 'now' | 'temporal' | 'config' | 'events' | 'audiences'>): RouteDef[] {
  const now = deps.now ?? (() => new Date());
  const controlDeps = () => ({ db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE, events: deps.events, now, audiences: deps.audiences });
  /** The record with its counters and, for a call campaign, its call progress (kept apart: src/campaigns/progress.ts). */
  const withCounters = async (c: CampaignDoc) => {
    const calls = await channelCallProgress(deps.db, c);
    return campaignView({ ...c, counters: (await campaignCounts(deps.db, c)).counters, ...(calls ? { calls } : {}) });
  };
  const ownCampaign = (ctx: RouteContext, id: string) => campaignOf(deps.db, ctx.state.workspace!._id, id);

  return [
    writeCampaigns.post('createCampaign', '/api/v1/campaigns', {
      summary: 'Create a draft (version 1) that messages nobody; launch it after evaluating. The API cannot edit a draft: replace a wrong one.',
      idempotent: true,
      body: createCampaignBody,
      response: { status: 201, description: 'The draft.', schema: campaignRecord },
      errors: ['conflict'],
      handler: async (ctx, { body }) => {
        const created = answerCreate(
          await createCampaign(deps.db, body, { workspace: ctx.state.workspace!, createdBy: { kind: 'api_key', id: ctx.state.apiKey!.key_id }, now: now() }),
        );
        return campaignView(created.campaign);
      },
    }),
    readCampaigns.get('listCampaigns', '/api/v1/campaigns', {
      summary: 'List campaigns, most recently changed first; archived ones only when asked for with status=archived.',
      query: listCampaignsQuery,
      response: { status: 200, description: 'A page of campaigns.', schema: pageOf(campaignRecord) },
      handler: async (ctx, { query: { limit, cursor, status } }) => {
        const tenantId = ctx.state.workspace!._id;
        let after = null;
        if (cursor) {
          const [updatedAt, id] = deps.cursors.decode(cursor, tenantId, LIST) as [string, string];
          after = { updatedAt: new Date(updatedAt), id };
        }
        const docs = await listCampaigns(deps.db, tenantId, { ...(status ? { status } : {}), after, limit });
        const calls = new Map(await Promise.all(docs.map(async (d) => [d._id, await channelCallProgress(deps.db, d)] as const)));
        return page(
          docs,
          limit,
          (d) => {
            const progress = calls.get(d._id);
            return campaignView({ ...d, ...(progress ? { calls: progress } : {}) });
          },
          (last) => deps.cursors.encode(tenantId, LIST, [last.updated_at.toISOString(), last._id]),
        );
      },
    }),
    readCampaign.get('getCampaign', '/api/v1/campaigns/{campaign_id}', {
      summary: 'Read one campaign with its counters.',
      response: { status: 200, description: 'The campaign.', schema: campaignRecord },
      handler: async (ctx, { params }) => withCounters(await ownCampaign(ctx, params.campaign_id)),
    }),
    readCampaign.post('evaluateCampaign', '/api/v1/campaigns/{campaign_id}/evaluate', {
      summary:
        'Dry-run the launch checks: who would be messaged, who is left out and why, samples, findings and the checksum of the exact list. No body; changes nothing.',
      response: { status: 200, description: 'The evaluate result.', schema: evaluateResult },
      handler: async (ctx, { params }) => {
        const campaign = await ownCampaign(ctx, params.campaign_id);
        return (await evaluateCampaign(deps.db, campaign, ctx.state.workspace!, { audiences: deps.audiences })).result;
      },
    }),
    writeCampaign.post('launchCampaign', '/api/v1/campaigns/{campaign_id}/launch', {
      summary:
        'Start sending a draft (or continue a paused campaign without rebuilding its audience). The checks run in the contract\'s order and the first refusal answers; the audience is staged and its consent pinned.',
      body: launchCampaignBody,
      response: { status: 200, description: 'The campaign, running or scheduled, with launch notices.', schema: launchedCampaign },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { params, body }) => {
        const done = answerControl(
          await controlCampaign(controlDeps(), { tenantId: ctx.state.workspace!._id, campaignId: params.campaign_id, action: 'launch', request: body }),
        );
        return { ...(await withCounters(done.campaign)), notices: done.notices };
      },
    }),
    ...(['pause', 'resume', 'cancel'] as const).map((action) =>
      writeCampaign.post(`${action}Campaign`, `/api/v1/campaigns/{campaign_id}/${action}`, {
        summary: CONTROL_SUMMARIES[action],
        body: controlCampaignBody,
        response: { status: 200, description: 'The campaign.', schema: campaignRecord },
        errors: ['conflict', 'failed_precondition'],
        handler: async (ctx, { params, body }) => {
          const done = answerControl(await controlCampaign(controlDeps(), { tenantId: ctx.state.workspace!._id, campaignId: params.campaign_id, action, request: body }));
          return withCounters(done.campaign);
        },
      }),
    ),
    readCampaign.get('listCampaignRecipients', '/api/v1/campaigns/{campaign_id}/recipients', {
      summary:
        'Each staged person in audience order with their state (queued, sent, delivered, read, failed, skipped) and its reason. A draft has none until launch.',
      query: listRecipientsQuery,
      response: { status: 200, description: 'A page of recipients.', schema: pageOf(recipientRecord) },
      handler: async (ctx, { params, query }) => recipientsAnswer(deps.db, deps.cursors, RECIPIENTS, await ownCampaign(ctx, params.campaign_id), query),
    }),
    readCampaign.get('getCampaignOutcomes', '/api/v1/campaigns/{campaign_id}/outcomes', {
      summary:
        'A call campaign\'s outcome report from each person\'s merged outcome: totals, the funnel (staged, dialled, answered, conversation, completed), dispositions, a summary of every capture field by its display, and calls by hour. 412 not_a_call_campaign on a WhatsApp campaign.',
      response: { status: 200, description: 'The outcome report.', schema: outcomeReport },
      errors: ['failed_precondition'],
      handler: async (ctx, { params }) => buildOutcomeReport(deps.db, requireCallCampaign(await ownCampaign(ctx, params.campaign_id)), now()),
    }),
    writeCampaign.get('getCampaignOutcomesCsv', '/api/v1/campaigns/{campaign_id}/outcomes.csv', {
      summary:
        'One row per person (audience order) with their merged outcome, one column per capture field key, then each field\'s evidence (quote and transcript turn). UTF-8 with a BOM, streamed; cells a spreadsheet would run as a formula start with \'. 412 not_a_call_campaign on a WhatsApp campaign.',
      response: { status: 200, description: 'The CSV.', mediaType: 'text/csv', schema: z.string() },
      errors: ['failed_precondition'],
      handler: async (ctx, { params }) => {
        sendOutcomesCsv(ctx, deps.db, requireCallCampaign(await ownCampaign(ctx, params.campaign_id)));
      },
    }),
  ];
}
