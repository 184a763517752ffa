import { LIMITS } from '../../../src/domain/limits';
import { apiSendIntentKey, oneOffSendIntentKey } from '../../../src/messaging/sendIntents';
import { sendWhatsAppMessage, SendInProgress, SendOutcomeUnknown } from '../../../src/messaging/sendMessage';
import { ApiError } from '../../errors';
import { createWhatsAppProvider, type WhatsAppProvider } from '../../../src/providers/whatsapp';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteDef } from '../../route';
import { sendMessageBody, sendMessageResult } from './messages.schema';

const messages = routeGroup({ auth: { scope: 'messages:send' } });

export function messagesRoutes(
  deps: Pick<PublicDeps, 'db' | 'temporal' | 'config' | 'events' | 'now' | 'logger'>,
  provider?: WhatsAppProvider,
): RouteDef[] {
  const now = deps.now ?? (() => new Date());
  // Built on first use, so describing the routes (OpenAPI) needs no configuration.
  let chosen = provider;
  const whatsapp = () =>
    (chosen ??= createWhatsAppProvider(deps.config, {
      db: deps.db,
      events: deps.events,
      onStatusError: (err, messageId) => deps.logger.warn({ err, messageId }, 'simulated WhatsApp status not recorded; the worker’s sweep retries'),
    }));
  return [
    messages.post('sendMessage', '/api/v1/messages', {
      summary: 'Send a WhatsApp message: free text inside the 24-hour window, or an approved template at any time.',
      idempotent: true,
      body: sendMessageBody,
      response: { status: 201, description: 'Accepted for delivery (not delivered).', schema: sendMessageResult },
      errors: ['not_found', 'conflict', 'failed_precondition', 'provider_error'],
      handler: async (ctx, { body }) => {
        const tenantId = ctx.state.workspace!._id;
        const idempotencyKey = ctx.get('idempotency-key');
        const intentKey = idempotencyKey
          ? apiSendIntentKey({ tenantId, apiKeyId: ctx.state.apiKey!.key_id, idempotencyKey, rawBody: ctx.state.rawBody ?? Buffer.alloc(0) })
          : oneOffSendIntentKey(tenantId, ctx.state.requestId);
        try {
          const sent = await sendWhatsAppMessage(
            { db: deps.db, events: deps.events, provider: whatsapp(), deploymentChannels: deps.config.DEPLOYMENT_CHANNELS, now, logger: ctx.state.log },
            { tenantId, to: body.to, text: body.text, template: body.template, senderId: body.sender_id, metadata: body.metadata ?? {}, intentKey },
          );
          return { message_id: sent.message_id, channel: sent.channel, to: sent.to, status: sent.status };
        } catch (err) {
          // A SendRefusal goes up as it is: the error handler answers it (api/refusals.ts).
          if (err instanceof SendInProgress) {
            throw new ApiError('conflict', err.message, { reason: 'idempotency_in_progress', retry_after_seconds: LIMITS.idempotencyRetryAfterSeconds });
          }
          if (err instanceof SendOutcomeUnknown) throw new ApiError('internal', err.message, { reason: 'send_outcome_unknown' });
          throw err;
        }
      },
    }),
  ];
}
