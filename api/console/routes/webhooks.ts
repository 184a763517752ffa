import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events/types';
import { createEndpoint, deleteEndpoint, findEndpoint, rotateEndpointSecret, updateEndpoint } from '../../../src/webhooks/endpointActions';
import { webhookEndpoints } from '../../../src/webhooks/endpoints';
import { ApiError } from '../../errors';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, idParam, tenantList, workspaceParams, type ConsoleDeps } from '../deps';
import { issuedWebhookRecord, webhookRecord, webhookView } from '../webhookViews';
import { allowPrivateUrls, WEBHOOK_NOT_FOUND, WEBHOOKS_PATH } from './webhookParts';
import { createWebhookBody, updateWebhookBody } from './webhooks.schema';

/**
 * Webhook endpoints (URL, event types, secret, enabled); the test action and replay are
 * webhookTests.ts, the deliveries webhookDeliveries.ts. See docs/webhooks.md.
 */
export function webhookRoutes(deps: ConsoleDeps): RouteDef[] {
  const params = workspaceParams({ webhook_id: idParam() });
  const notFound = { webhook_id: WEBHOOK_NOT_FOUND };
  return [
    route({
      method: 'get',
      path: `${CONSOLE_PREFIX}/event-types`,
      operationId: 'listEventTypes',
      summary: 'The subscribable event types (`ping` is not one).',
      response: { status: 200, description: '`{items}`.', schema: z.object({ items: z.array(z.string()) }) },
      handler: async (ctx) => {
        ctx.body = { items: [...SUBSCRIBABLE_EVENT_TYPES] };
      },
    }),
    route({
      method: 'post',
      path: WEBHOOKS_PATH,
      operationId: 'createWebhook',
      summary: 'Add a webhook endpoint; its signing secret is shown this once.',
      params: workspaceParams({}),
      body: createWebhookBody,
      response: { status: 201, description: 'The endpoint plus `secret`.', schema: issuedWebhookRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { body }) => {
        const now = deps.now();
        const doc = await createEndpoint(deps.db, ctx.state.workspace!._id, body, allowPrivateUrls(deps), now);
        ctx.status = 201;
        ctx.body = { ...webhookView(doc, now), secret: doc.secret };
      },
    }),
    tenantList('webhooks', 'listWebhooks', webhookEndpoints(deps.db), (doc) => webhookView(doc, deps.now()), webhookRecord),
    route({
      method: 'get',
      path: `${WEBHOOKS_PATH}/{webhook_id}`,
      operationId: 'getWebhook',
      summary: 'Read a webhook endpoint; never its secret.',
      params,
      notFound,
      response: { status: 200, description: 'The endpoint.', schema: webhookRecord },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        const endpoint = await findEndpoint(deps.db, ctx.state.workspace!._id, params.webhook_id);
        if (!endpoint) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        ctx.body = webhookView(endpoint, deps.now());
      },
    }),
    route({
      method: 'patch',
      path: `${WEBHOOKS_PATH}/{webhook_id}`,
      operationId: 'updateWebhook',
      summary: 'Change any of `url`, `event_types`, `enabled`, `description`.',
      params,
      notFound,
      body: updateWebhookBody,
      response: { status: 200, description: 'The endpoint.', schema: webhookRecord },
      errors: ['not_found'],
      handler: async (ctx, { params, body }) => {
        const now = deps.now();
        const updated = await updateEndpoint(deps.db, ctx.state.workspace!._id, params.webhook_id, body, allowPrivateUrls(deps), now);
        if (!updated) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        ctx.body = webhookView(updated, now);
      },
    }),
    route({
      method: 'post',
      path: `${WEBHOOKS_PATH}/{webhook_id}/rotate-secret`,
      operationId: 'rotateWebhookSecret',
      summary: 'Issue a new signing secret; the old one keeps signing for 24 hours.',
      params,
      notFound,
      response: { status: 200, description: 'The endpoint plus the new `secret`.', schema: issuedWebhookRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { params }) => {
        const now = deps.now();
        const updated = await rotateEndpointSecret(deps.db, ctx.state.workspace!._id, params.webhook_id, now);
        if (!updated) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        ctx.body = { ...webhookView(updated, now), secret: updated.secret };
      },
    }),
    route({
      method: 'delete',
      path: `${WEBHOOKS_PATH}/{webhook_id}`,
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint; its pending deliveries end `cancelled`.',
      params,
      notFound,
      response: { status: 200, description: '`{webhook_id, deleted: true}`.', schema: z.object({ webhook_id: z.string(), deleted: z.literal(true) }) },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        if (!(await deleteEndpoint(deps.db, ctx.state.workspace!._id, params.webhook_id))) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        ctx.body = { webhook_id: params.webhook_id, deleted: true };
      },
    }),
  ];
}
