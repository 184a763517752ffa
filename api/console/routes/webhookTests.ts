import { pingEndpoint, replayEvent } from '../../../src/webhooks/endpointActions';
import { ApiError } from '../../errors';
import { route, type RouteDef } from '../../route';
import { idParam, workspaceParams, type ConsoleDeps } from '../deps';
import { deliveryRecord, deliveryView } from '../webhookViews';
import { deliveryStarter, WEBHOOK_NOT_FOUND, WEBHOOKS_PATH } from './webhookParts';
import { replayBody } from './webhooks.schema';

/** An endpoint's test action (a `ping`) and the replay of a stored event. See docs/webhooks.md. */
export function webhookTestRoutes(deps: ConsoleDeps): RouteDef[] {
  const params = workspaceParams({ webhook_id: idParam() });
  const notFound = { webhook_id: WEBHOOK_NOT_FOUND };
  const answer = { status: 202, description: 'The new delivery, with `attempts`.', schema: deliveryRecord.required({ attempts: true }) } as const;
  return [
    route({
      method: 'post',
      path: `${WEBHOOKS_PATH}/{webhook_id}/test`,
      operationId: 'testWebhook',
      summary: 'Send a `ping` event to this endpoint only.',
      params,
      notFound,
      response: answer,
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { params }) => {
        const delivery = await pingEndpoint(deps.db, deliveryStarter(deps), ctx.state.workspace!._id, params.webhook_id, deps.now());
        if (!delivery) throw new ApiError('not_found', WEBHOOK_NOT_FOUND);
        ctx.status = 202;
        ctx.body = deliveryView(delivery, true);
      },
    }),
    route({
      method: 'post',
      path: `${WEBHOOKS_PATH}/{webhook_id}/replay`,
      operationId: 'replayWebhookEvent',
      summary: 'Deliver a stored event to this endpoint again.',
      params,
      notFound,
      body: replayBody,
      response: answer,
      errors: ['not_found', 'failed_precondition'],
      handler: async (ctx, { params, body }) => {
        const replayed = await replayEvent(deps.db, deliveryStarter(deps), ctx.state.workspace!._id, params.webhook_id, body.event_id, deps.now());
        if ('missing' in replayed) throw new ApiError('not_found', replayed.missing === 'endpoint' ? WEBHOOK_NOT_FOUND : 'Event not found.');
        ctx.status = 202;
        ctx.body = deliveryView(replayed.delivery, true);
      },
    }),
  ];
}
