import { LIMITS } from '../../../src/domain/limits';
import { apiSendIntentKey, oneOffSendIntentKey } from '../../../src/messaging/sendIntents';
import { sendWhatsAppMessage, SendInProgress, SendOutcomeUnknown, SendRefusal, type SendRefusalReason } from '../../../src/messaging/sendMessage';
import { createWhatsAppProvider, type WhatsAppProvider } from '../../../src/providers/whatsapp';
import { ApiError, type ErrorCode } from '../../errors';
import type { PublicDeps } from '../deps';
import type { RouteDef } from '../route';
import { sendMessageBody, sendMessageResult, type SendMessageBody } from './messages.schema';

/** Where each send refusal sits among the nine codes (api-core §7). */
const REFUSAL_CODES: Record<SendRefusalReason, ErrorCode> = {
  empty_message: 'invalid_argument',
  template_variables: 'invalid_argument',
  unsupported_channel: 'failed_precondition',
  workspace_suspended: 'failed_precondition',
  allowance_exhausted: 'failed_precondition',
  channel_dormant: 'failed_precondition',
  channel_not_connected: 'failed_precondition',
  template_media_missing: 'failed_precondition',
  suppressed: 'permission_denied',
  template_not_found: 'not_found',
  session_window_closed: 'conflict',
  provider_error: 'provider_error',
};

export function toApiError(refusal: SendRefusal): ApiError {
  // A provider refusal carries the provider's fields and no reason (api-core §7).
  const details = refusal.reason === 'provider_error' ? refusal.details : { reason: refusal.reason, ...refusal.details };
  return new ApiError(REFUSAL_CODES[refusal.reason], refusal.message, details);
}

export function messagesRoutes(
  deps: Pick<PublicDeps, 'db' | 'temporal' | 'config' | 'events' | 'now' | 'logger'>,
  provider?: WhatsAppProvider,
): RouteDef[] {
  const now = deps.now ?? (() => new Date());
  // Built on first use, so describing the routes (OpenAPI) needs no configuration.
  let chosen = provider;
  const whatsapp = () => (chosen ??= createWhatsAppProvider(deps.config, deps));
  return [
    {
      method: 'post',
      path: '/api/v1/messages',
      operationId: 'sendMessage',
      summary: 'Send a WhatsApp message: free text inside the 24-hour window, or an approved template at any time.',
      auth: { scope: 'messages:send' },
      idempotent: true,
      body: sendMessageBody,
      response: { status: 201, description: 'Accepted for delivery (not delivered).', schema: sendMessageResult },
      errors: ['not_found', 'conflict', 'failed_precondition', 'provider_error'],
      handler: async (ctx) => {
        const body = ctx.state.input!.body as SendMessageBody;
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
          ctx.status = 201;
          ctx.body = { message_id: sent.message_id, channel: sent.channel, to: sent.to, status: sent.status };
        } catch (err) {
          if (err instanceof SendRefusal) throw toApiError(err);
          if (err instanceof SendInProgress) {
            throw new ApiError('conflict', err.message, { reason: 'idempotency_in_progress', retry_after_seconds: LIMITS.idempotencyRetryAfterSeconds });
          }
          if (err instanceof SendOutcomeUnknown) throw new ApiError('internal', err.message, { reason: 'send_outcome_unknown' });
          throw err;
        }
      },
    },
  ];
}
