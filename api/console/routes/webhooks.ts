import { z } from 'zod';
import { webhookPrivateUrlsAllowed } from '../../../src/config';
import { cursorSecret } from '../../../src/auth/secrets';
import { newId } from '../../../src/domain/ids';
import { eventsCollection, newEventDoc } from '../../../src/events/eventStore';
import { PING_EVENT_TYPE, SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events/types';
import { webhookDeliveries, type WebhookDeliveryDoc } from '../../../src/webhooks/deliveries';
import {
  MAX_ENDPOINTS_PER_WORKSPACE,
  newWebhookEndpoint,
  PREVIOUS_SECRET_GRACE_MS,
  webhookEndpoints,
  type WebhookEndpointDoc,
} from '../../../src/webhooks/endpoints';
import { newSigningSecret } from '../../../src/webhooks/signature';
import { forgetEndpoints } from '../../../src/webhooks/endpointDirectory';
import { startDelivery } from '../../../src/webhooks/startDelivery';
import { checkWebhookUrl } from '../../../src/webhooks/urlPolicy';
import { deliveryWorkflowId, replayWorkflowId } from '../../../src/webhooks/contracts';
import { ApiError } from '../../errors';
import { CursorCodec, page } from '../../pagination';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, idParam, tenantList, workspaceParams, type ConsoleDeps } from '../deps';
import { deliveryRecord, deliveryView, issuedWebhookRecord, webhookRecord, webhookView } from '../webhookViews';
import { createWebhookBody, deliveriesQuery, replayBody, updateWebhookBody } from './webhooks.schema';

const WEBHOOK_NOT_FOUND = 'Webhook endpoint not found.';
const DELIVERY_NOT_FOUND = 'Delivery not found.';

/**
 * Webhook endpoints (URL, event types, secret, enabled), their deliveries with every
 * attempt, the test action (a `ping`) and replay. See docs/webhooks.md.
 */
export function webhookRoutes(deps: ConsoleDeps): RouteDef[] {
  const routes: RouteDef[] = [];
  const endpoints = webhookEndpoints(deps.db);
  const deliveries = webhookDeliveries(deps.db);
  const events = eventsCollection(deps.db);
  const cursors = new CursorCodec(cursorSecret(deps.config));
  const allowPrivate = webhookPrivateUrlsAllowed(deps.config);
  const base = `${CONSOLE_PREFIX}/workspaces/{workspace_id}/webhooks`;

  async function refusePrivate(url: string): Promise<void> {
    const check = await checkWebhookUrl(url, allowPrivate);
    if (check.ok) return;
    if (check.reason === 'webhook_url_unresolvable') {
      throw new ApiError('invalid_argument', `The webhook URL's host ${check.host} could not be resolved.`, { reason: check.reason, host: check.host });
    }
    throw new ApiError(
      'invalid_argument',
      `Webhook URLs may not point at private, loopback or link-local addresses; ${check.host} is ${check.address}.`,
      { reason: check.reason, host: check.host, address: check.address },
    );
  }

  async function ownEndpoint(tenantId: string, webhookId: string): Promise<WebhookEndpointDoc> {
    const endpoint = await endpoints.findOne({ _id: webhookId, tenant_id: tenantId });
    if (!endpoint) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
    return endpoint;
  }

  function enabledOnly(endpoint: WebhookEndpointDoc): void {
    if (!endpoint.enabled) {
      throw new ApiError('failed_precondition', 'This webhook endpoint is disabled; enable it first.', { reason: 'webhook_disabled' });
    }
  }

  routes.push(
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
  );

  routes.push(
    route({
      method: 'post',
      path: base,
      operationId: 'createWebhook',
      summary: 'Add a webhook endpoint; its signing secret is shown this once.',
      params: workspaceParams({}),
      body: createWebhookBody,
      response: { status: 201, description: 'The endpoint plus `secret`.', schema: issuedWebhookRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { body }) => {
        const tenantId = ctx.state.workspace!._id;
        if ((await endpoints.countDocuments({ tenant_id: tenantId })) >= MAX_ENDPOINTS_PER_WORKSPACE) {
          throw new ApiError('conflict', `A workspace can have at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints.`, {
            reason: 'webhook_limit_reached',
            limit: MAX_ENDPOINTS_PER_WORKSPACE,
          });
        }
        await refusePrivate(body.url);
        const now = deps.now();
        const doc = newWebhookEndpoint(
          { _id: newId('whk', now), tenant_id: tenantId, url: body.url, event_types: body.event_types, enabled: body.enabled, description: body.description },
          now,
        );
        await endpoints.insertOne(doc);
        forgetEndpoints(tenantId);
        ctx.status = 201;
        ctx.body = { ...webhookView(doc, now), secret: doc.secret };
      },
    }),
  );

  routes.push(tenantList('webhooks', 'listWebhooks', endpoints, (doc) => webhookView(doc, deps.now()), webhookRecord));

  routes.push(
    route({
      method: 'get',
      path: `${base}/{webhook_id}`,
      operationId: 'getWebhook',
      summary: 'Read a webhook endpoint; never its secret.',
      params: workspaceParams({ webhook_id: idParam() }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND },
      response: { status: 200, description: 'The endpoint.', schema: webhookRecord },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        ctx.body = webhookView(await ownEndpoint(ctx.state.workspace!._id, params.webhook_id), deps.now());
      },
    }),
  );

  routes.push(
    route({
      method: 'patch',
      path: `${base}/{webhook_id}`,
      operationId: 'updateWebhook',
      summary: 'Change any of `url`, `event_types`, `enabled`, `description`.',
      params: workspaceParams({ webhook_id: idParam() }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND },
      body: updateWebhookBody,
      response: { status: 200, description: 'The endpoint.', schema: webhookRecord },
      errors: ['not_found'],
      handler: async (ctx, { params, body }) => {
        const tenantId = ctx.state.workspace!._id;
        await ownEndpoint(tenantId, params.webhook_id);
        if (body.url !== undefined) await refusePrivate(body.url);
        const now = deps.now();
        const updated = await endpoints.findOneAndUpdate(
          { _id: params.webhook_id, tenant_id: tenantId },
          { $set: { ...body, updated_at: now } },
          { returnDocument: 'after' },
        );
        if (!updated) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        forgetEndpoints(tenantId);
        ctx.body = webhookView(updated, now);
      },
    }),
  );

  routes.push(
    route({
      method: 'post',
      path: `${base}/{webhook_id}/rotate-secret`,
      operationId: 'rotateWebhookSecret',
      summary: 'Issue a new signing secret; the old one keeps signing for 24 hours.',
      params: workspaceParams({ webhook_id: idParam() }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND },
      response: { status: 200, description: 'The endpoint plus the new `secret`.', schema: issuedWebhookRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { params }) => {
        const tenantId = ctx.state.workspace!._id;
        const current = await ownEndpoint(tenantId, params.webhook_id);
        const now = deps.now();
        const secret = newSigningSecret();
        // Conditional on the secret read, so two rotations at once cannot both claim the grace slot.
        const updated = await endpoints.findOneAndUpdate(
          { _id: current._id, tenant_id: tenantId, secret: current.secret },
          {
            $set: {
              secret,
              previous_secret: current.secret,
              previous_secret_expires_at: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
              updated_at: now,
            },
          },
          { returnDocument: 'after' },
        );
        if (!updated) throw new ApiError('conflict', 'The secret was rotated by another request; try again.', { reason: 'webhook_secret_rotating' });
        ctx.body = { ...webhookView(updated, now), secret };
      },
    }),
  );

  routes.push(
    route({
      method: 'delete',
      path: `${base}/{webhook_id}`,
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint; its pending deliveries end `cancelled`.',
      params: workspaceParams({ webhook_id: idParam() }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND },
      response: { status: 200, description: '`{webhook_id, deleted: true}`.', schema: z.object({ webhook_id: z.string(), deleted: z.literal(true) }) },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        const result = await endpoints.deleteOne({ _id: params.webhook_id, tenant_id: ctx.state.workspace!._id });
        if (result.deletedCount === 0) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        forgetEndpoints(ctx.state.workspace!._id);
        ctx.body = { webhook_id: params.webhook_id, deleted: true };
      },
    }),
  );

  routes.push(
    route({
      method: 'post',
      path: `${base}/{webhook_id}/test`,
      operationId: 'testWebhook',
      summary: 'Send a `ping` event to this endpoint only.',
      params: workspaceParams({ webhook_id: idParam() }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND },
      response: { status: 202, description: 'The new delivery, with `attempts`.', schema: deliveryRecord.required({ attempts: true }) },
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { params }) => {
        const tenantId = ctx.state.workspace!._id;
        const endpoint = await ownEndpoint(tenantId, params.webhook_id);
        enabledOnly(endpoint);
        const now = deps.now();
        // A ping is stored like any event (so it can be replayed and its bytes stay fixed) but
        // marked dispatched: it goes to this endpoint only, never through the fan-out.
        const ping = { ...newEventDoc({ tenantId, type: PING_EVENT_TYPE, dedupeKey: `ping:${newId('png', now)}`, data: { webhook_id: endpoint._id }, createdAt: now }), dispatched_at: now };
        await events.insertOne(ping);
        const delivery = await startDelivery(
          deps.db,
          deps.temporal,
          deps.config.TEMPORAL_TASK_QUEUE,
          { deliveryId: deliveryWorkflowId(ping._id, endpoint._id), tenantId, eventId: ping._id, endpointId: endpoint._id, trigger: 'test', eventType: ping.type },
          now,
        );
        ctx.status = 202;
        ctx.body = deliveryView(delivery, true);
      },
    }),
  );

  routes.push(
    route({
      method: 'post',
      path: `${base}/{webhook_id}/replay`,
      operationId: 'replayWebhookEvent',
      summary: 'Deliver a stored event to this endpoint again.',
      params: workspaceParams({ webhook_id: idParam() }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND },
      body: replayBody,
      response: { status: 202, description: 'The new delivery, with `attempts`.', schema: deliveryRecord.required({ attempts: true }) },
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { params, body }) => {
        const tenantId = ctx.state.workspace!._id;
        const endpoint = await ownEndpoint(tenantId, params.webhook_id);
        const event = await events.findOne({ _id: body.event_id });
        if (!event || event.tenant_id !== tenantId) throw new ApiError('not_found', 'Event not found.');
        enabledOnly(endpoint);
        const now = deps.now();
        const delivery = await startDelivery(
          deps.db,
          deps.temporal,
          deps.config.TEMPORAL_TASK_QUEUE,
          {
            deliveryId: replayWorkflowId(event._id, endpoint._id, newId('rpl', now)),
            tenantId,
            eventId: event._id,
            endpointId: endpoint._id,
            trigger: 'replay',
            eventType: event.type,
          },
          now,
        );
        ctx.status = 202;
        ctx.body = deliveryView(delivery, true);
      },
    }),
  );

  routes.push(
    route({
      method: 'get',
      path: `${base}/{webhook_id}/deliveries`,
      operationId: 'listWebhookDeliveries',
      summary: "An endpoint's deliveries, newest first, without attempts.",
      params: workspaceParams({ webhook_id: idParam() }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND },
      query: deliveriesQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: z.object({ items: z.array(deliveryRecord), next_cursor: z.string().nullable() }) },
      errors: ['not_found'],
      handler: async (ctx, { params, query }) => {
        const tenantId = ctx.state.workspace!._id;
        const endpoint = await ownEndpoint(tenantId, params.webhook_id);
        const list = `webhook-deliveries:${endpoint._id}`;
        const filter: Record<string, unknown> = { tenant_id: tenantId, endpoint_id: endpoint._id };
        if (query.status) filter.status = query.status;
        if (query.event_id) filter.event_id = query.event_id;
        if (query.cursor) {
          const [ms, id] = cursors.decode(query.cursor, tenantId, list) as [number, string];
          const at = new Date(ms);
          filter.$or = [{ created_at: { $lt: at } }, { created_at: at, _id: { $lt: id } }];
        }
        const docs = await deliveries.find(filter).sort({ created_at: -1, _id: -1 }).limit(query.limit).toArray();
        ctx.body = page(
          docs,
          query.limit,
          (d: WebhookDeliveryDoc) => deliveryView(d, false),
          (last) => cursors.encode(tenantId, list, [last.created_at.getTime(), last._id]),
        );
      },
    }),
  );

  routes.push(
    route({
      method: 'get',
      path: `${base}/{webhook_id}/deliveries/{delivery_id}`,
      operationId: 'getWebhookDelivery',
      summary: 'A delivery with every attempt.',
      params: workspaceParams({ webhook_id: idParam(), delivery_id: z.string().min(1).max(200) }),
      notFound: { webhook_id: WEBHOOK_NOT_FOUND, delivery_id: DELIVERY_NOT_FOUND },
      response: { status: 200, description: 'The delivery with `attempts`.', schema: deliveryRecord.required({ attempts: true }) },
      errors: ['not_found'],
      handler: async (ctx, { params: { webhook_id, delivery_id } }) => {
        const tenantId = ctx.state.workspace!._id;
        const endpoint = await ownEndpoint(tenantId, webhook_id);
        const delivery = await deliveries.findOne({ _id: delivery_id, tenant_id: tenantId, endpoint_id: endpoint._id });
        if (!delivery) throw new ApiError('not_found', DELIVERY_NOT_FOUND);
        ctx.body = deliveryView(delivery, true);
      },
    }),
  );
  return routes;
}
