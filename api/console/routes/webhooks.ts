import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events/types';
import { recentSuccessRates, SUCCESS_RATE_HOURS, type SuccessRate } from '../../../src/webhooks/attemptTallies';
import { createEndpoint, deleteEndpoint, findEndpoint, rotateEndpointSecret, updateEndpoint, workspaceEndpoints } from '../../../src/webhooks/endpointActions';
import type { WebhookEndpointDoc } from '../../../src/webhooks/endpoints';
import { ApiError, found } from '../../errors';
import type { RouteDef } from '../../route';
import { consoleApi, CONSOLE_PREFIX, workspaceGroup, type ConsoleDeps } from '../deps';
import { itemsOf } from '../views';
import { issuedWebhookRecord, webhookRecord, webhookView } from '../webhookViews';
import { allowPrivateUrls, webhook, WEBHOOK_NOT_FOUND } from './webhookParts';
import { createWebhookBody, updateWebhookBody } from './webhooks.schema';

const ws = workspaceGroup();

/**
 * Webhook endpoints (URL, event types, secret, enabled); the test action and replay are
 * webhookTests.ts, the deliveries webhookDeliveries.ts. See docs/webhooks.md.
 */
export function webhookRoutes(deps: ConsoleDeps): RouteDef[] {
  /** The endpoints as shown, each with its success rate over the last hours (one read for all). */
  async function shown(tenantId: string, docs: WebhookEndpointDoc[], now = deps.now()) {
    const rates = await recentSuccessRates(deps.db, tenantId, docs.map((d) => d._id), now);
    return docs.map((doc) => webhookView(doc, now, rates.get(doc._id)!));
  }
  const one = async (tenantId: string, doc: WebhookEndpointDoc | null) => (await shown(tenantId, [found(doc, WEBHOOK_NOT_FOUND)]))[0]!;
  const nothingSent: SuccessRate = { hours: SUCCESS_RATE_HOURS, attempts: 0, succeeded: 0 };

  return [
    consoleApi.get('listEventTypes', `${CONSOLE_PREFIX}/event-types`, {
      summary: 'The subscribable event types (`ping` is not one).',
      response: { status: 200, description: '`{items}`.', schema: z.object({ items: z.array(z.string()) }) },
      handler: () => ({ items: [...SUBSCRIBABLE_EVENT_TYPES] }),
    }),
    ws.post('createWebhook', 'webhooks', {
      summary: 'Add a webhook endpoint; its signing secret is shown this once.',
      body: createWebhookBody,
      response: { status: 201, description: 'The endpoint plus `secret`.', schema: issuedWebhookRecord },
      errors: ['conflict'],
      handler: async (ctx, { body, tenantId }) => {
        const now = deps.now();
        const doc = await createEndpoint(deps.db, tenantId, body, allowPrivateUrls(deps), now);
        return { ...webhookView(doc, now, nothingSent), secret: doc.secret };
      },
    }),
    ws.get('listWebhooks', 'webhooks', {
      summary: "List the workspace's webhook endpoints, oldest first, each with its success rate; never a secret.",
      response: { status: 200, description: '`{items}`.', schema: itemsOf(webhookRecord) },
      handler: async (ctx, { tenantId }) => ({ items: await shown(tenantId, await workspaceEndpoints(deps.db, tenantId)) }),
    }),
    webhook.get('getWebhook', 'webhooks/{webhook_id}', {
      summary: 'Read a webhook endpoint with its success rate; never its secret.',
      response: { status: 200, description: 'The endpoint.', schema: webhookRecord },
      handler: async (ctx, { params, tenantId }) => one(tenantId, await findEndpoint(deps.db, tenantId, params.webhook_id)),
    }),
    webhook.patch('updateWebhook', 'webhooks/{webhook_id}', {
      summary: 'Change any of `url`, `event_types`, `enabled`, `description`.',
      body: updateWebhookBody,
      response: { status: 200, description: 'The endpoint.', schema: webhookRecord },
      handler: async (ctx, { params, body, tenantId }) => one(tenantId, await updateEndpoint(deps.db, tenantId, params.webhook_id, body, allowPrivateUrls(deps), deps.now())),
    }),
    webhook.post('rotateWebhookSecret', 'webhooks/{webhook_id}/rotate-secret', {
      summary: 'Issue a new signing secret; the old one keeps signing for 24 hours.',
      response: { status: 200, description: 'The endpoint plus the new `secret`.', schema: issuedWebhookRecord },
      errors: ['conflict'],
      handler: async (ctx, { params, tenantId }) => {
        const rotated = found(await rotateEndpointSecret(deps.db, tenantId, params.webhook_id, deps.now()), WEBHOOK_NOT_FOUND);
        return { ...(await one(tenantId, rotated)), secret: rotated.secret };
      },
    }),
    webhook.delete('deleteWebhook', 'webhooks/{webhook_id}', {
      summary: 'Delete a webhook endpoint; its pending deliveries end `cancelled`.',
      response: { status: 200, description: '`{webhook_id, deleted: true}`.', schema: z.object({ webhook_id: z.string(), deleted: z.literal(true) }) },
      handler: async (ctx, { params, tenantId }) => {
        if (!(await deleteEndpoint(deps.db, tenantId, params.webhook_id))) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        return { webhook_id: params.webhook_id, deleted: true };
      },
    }),
  ];
}
