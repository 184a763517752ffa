import { z } from 'zod';
import { findCampaign, campaignCollections, type CampaignDoc } from '../../../src/campaigns/campaign';
import { draftCampaign, insertDraft } from '../../../src/campaigns/createCampaign';
import { evaluateCampaign } from '../../../src/campaigns/evaluate';
import { ApiError } from '../../errors';
import { page } from '../../pagination';
import { validationError } from '../../validation';
import type { PublicDeps } from '../deps';
import { route, type RouteContext, type RouteDef } from '../../route';
import { campaignParams, campaignRecord, campaignView, createCampaignBody, evaluateResult, listCampaignsQuery } from './campaigns.schema';

const LIST = 'campaigns';

const NOT_FOUND = 'Campaign not found.';
const notFound = () => new ApiError('not_found', NOT_FOUND);

export function campaignsRoutes(deps: Pick<PublicDeps, 'db' | 'cursors' | 'now'>): RouteDef[] {
  const now = deps.now ?? (() => new Date());
  const { campaigns } = campaignCollections(deps.db);

  async function campaignOf(ctx: RouteContext, id: string): Promise<CampaignDoc> {
    const campaign = await findCampaign(deps.db, ctx.state.workspace!._id, id);
    if (!campaign) throw notFound();
    return campaign;
  }

  return [
    route({
      method: 'post',
      path: '/api/v1/campaigns',
      operationId: 'createCampaign',
      summary: 'Create a draft (version 1) that messages nobody; launch it after evaluating. The API cannot edit a draft: replace a wrong one.',
      auth: { scope: 'campaigns:write' },
      idempotent: true,
      body: createCampaignBody,
      response: { status: 201, description: 'The draft.', schema: campaignRecord },
      errors: ['conflict'],
      handler: async (ctx, { body }) => {
        const drafted = draftCampaign(body, {
          workspace: ctx.state.workspace!,
          createdBy: { kind: 'api_key', id: ctx.state.apiKey!.key_id },
          now: now(),
        });
        if (drafted.kind === 'refused') throw new ApiError('invalid_argument', drafted.message, drafted.details);
        if (drafted.kind === 'invalid_field') throw validationError([{ loc: drafted.loc, msg: drafted.msg, type: drafted.type }]);
        await insertDraft(deps.db, drafted);
        ctx.status = 201;
        ctx.body = campaignView(drafted.campaign);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/campaigns',
      operationId: 'listCampaigns',
      summary: 'List campaigns, most recently changed first; archived ones only when asked for with status=archived.',
      auth: { scope: 'campaigns:read' },
      query: listCampaignsQuery,
      response: {
        status: 200,
        description: 'A page of campaigns.',
        schema: z.object({ items: z.array(campaignRecord), next_cursor: z.string().nullable() }),
      },
      handler: async (ctx, { query: { limit, cursor, status } }) => {
        const tenantId = ctx.state.workspace!._id;
        const filter: Record<string, unknown> = { tenant_id: tenantId, status: status ?? { $ne: 'archived' } };
        if (cursor) {
          const [updatedAt, id] = deps.cursors.decode(cursor, tenantId, LIST) as [string, string];
          const at = new Date(updatedAt);
          filter.$or = [{ updated_at: { $lt: at } }, { updated_at: at, _id: { $lt: id } }];
        }
        const docs = await campaigns.find(filter).sort({ updated_at: -1, _id: -1 }).limit(limit).toArray();
        ctx.body = page(docs, limit, campaignView, (last) => deps.cursors.encode(tenantId, LIST, [last.updated_at.toISOString(), last._id]));
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/campaigns/{campaign_id}',
      operationId: 'getCampaign',
      summary: 'Read one campaign with its counters.',
      auth: { scope: 'campaigns:read' },
      params: campaignParams,
      response: { status: 200, description: 'The campaign.', schema: campaignRecord },
      notFound: { campaign_id: NOT_FOUND },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        ctx.body = campaignView(await campaignOf(ctx, params.campaign_id));
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/campaigns/{campaign_id}/evaluate',
      operationId: 'evaluateCampaign',
      summary:
        'Dry-run the launch checks: who would be messaged, who is left out and why, samples, findings and the checksum of the exact list. No body; changes nothing.',
      auth: { scope: 'campaigns:read' },
      params: campaignParams,
      response: { status: 200, description: 'The evaluate result.', schema: evaluateResult },
      notFound: { campaign_id: NOT_FOUND },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        const campaign = await campaignOf(ctx, params.campaign_id);
        const { result } = await evaluateCampaign(deps.db, campaign, ctx.state.workspace!);
        ctx.body = result;
      },
    }),
  ];
}
