import { z } from 'zod';
import { cursorSecret } from '../../../src/auth/secrets';
import { findEndpointDelivery, type WebhookDeliveryDoc } from '../../../src/webhooks/deliveries';
import { endpointDeliveriesPage } from '../../../src/webhooks/deliveryList';
import { findEndpoint } from '../../../src/webhooks/endpointActions';
import { found } from '../../errors';
import { CursorCodec, page, pageOf } from '../../pagination';
import type { RouteDef } from '../../route';
import type { ConsoleDeps } from '../deps';
import { deliveryRecord, deliveryView } from '../webhookViews';
import { DELIVERY_NOT_FOUND, webhook, WEBHOOK_NOT_FOUND } from './webhookParts';
import { deliveriesQuery } from './webhooks.schema';

/** One delivery of an endpoint: its ids are longer than `idParam` allows. */
const delivery = webhook.record('delivery_id', DELIVERY_NOT_FOUND, z.string().min(1).max(200));

/** An endpoint's deliveries, newest first, and one delivery with every attempt. See docs/webhooks.md. */
export function webhookDeliveryRoutes(deps: ConsoleDeps): RouteDef[] {
  const cursors = new CursorCodec(cursorSecret(deps.config));

  async function ownEndpointId(tenantId: string, webhookId: string): Promise<string> {
    return found(await findEndpoint(deps.db, tenantId, webhookId), WEBHOOK_NOT_FOUND)._id;
  }

  return [
    webhook.get('listWebhookDeliveries', 'webhooks/{webhook_id}/deliveries', {
      summary: "An endpoint's deliveries, newest first, without attempts.",
      query: deliveriesQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: pageOf(deliveryRecord) },
      handler: async (ctx, { params, query, tenantId }) => {
        const endpointId = await ownEndpointId(tenantId, params.webhook_id);
        const list = `webhook-deliveries:${endpointId}`;
        const cursor = query.cursor ? (cursors.decode(query.cursor, tenantId, list) as [number, string]) : undefined;
        const before = cursor && { at: new Date(cursor[0]), id: cursor[1] };
        const docs = await endpointDeliveriesPage(deps.db, tenantId, endpointId, { status: query.status, eventId: query.event_id, before }, query.limit);
        return page(
          docs,
          query.limit,
          (d: WebhookDeliveryDoc) => deliveryView(d, false),
          (last) => cursors.encode(tenantId, list, [last.created_at.getTime(), last._id]),
        );
      },
    }),
    delivery.get('getWebhookDelivery', 'webhooks/{webhook_id}/deliveries/{delivery_id}', {
      summary: 'A delivery with every attempt.',
      response: { status: 200, description: 'The delivery with `attempts`.', schema: deliveryRecord.required({ attempts: true }) },
      handler: async (ctx, { params: { webhook_id, delivery_id }, tenantId }) => {
        const endpointId = await ownEndpointId(tenantId, webhook_id);
        return deliveryView(found(await findEndpointDelivery(deps.db, tenantId, endpointId, delivery_id), DELIVERY_NOT_FOUND), true);
      },
    }),
  ];
}
