import { pingEndpoint, replayEvent } from '../../../src/webhooks/endpointActions';
import { ApiError, found } from '../../errors';
import type { RouteDef } from '../../route';
import type { ConsoleDeps } from '../deps';
import { deliveryRecord, deliveryView } from '../webhookViews';
import { deliveryStarter, webhook, WEBHOOK_NOT_FOUND } from './webhookParts';
import { replayBody } from './webhooks.schema';

/** An endpoint's test action (a `ping`) and the replay of a stored event. See docs/webhooks.md. */
export function webhookTestRoutes(deps: ConsoleDeps): RouteDef[] {
  const answer = { status: 202, description: 'The new delivery, with `attempts`.', schema: deliveryRecord.required({ attempts: true }) } as const;
  return [
    webhook.post('testWebhook', 'webhooks/{webhook_id}/test', {
      summary: 'Send a `ping` event to this endpoint only.',
      response: answer,
      errors: ['failed_precondition'],
      handler: async (ctx, { params, tenantId }) =>
        deliveryView(found(await pingEndpoint(deps.db, deliveryStarter(deps), tenantId, params.webhook_id, deps.now()), WEBHOOK_NOT_FOUND), true),
    }),
    webhook.post('replayWebhookEvent', 'webhooks/{webhook_id}/replay', {
      summary: 'Deliver a stored event to this endpoint again.',
      body: replayBody,
      response: answer,
      errors: ['failed_precondition'],
      handler: async (ctx, { params, body, tenantId }) => {
        const replayed = await replayEvent(deps.db, deliveryStarter(deps), tenantId, params.webhook_id, body.event_id, deps.now());
        if ('missing' in replayed) throw new ApiError('not_found', replayed.missing === 'endpoint' ? WEBHOOK_NOT_FOUND : 'Event not found.');
        return deliveryView(replayed.delivery, true);
      },
    }),
  ];
}
