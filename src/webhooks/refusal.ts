import { Refusal } from '../domain/refusal';

/**
 * Why a console change to a webhook endpoint was refused: the workspace is at its endpoint
 * limit, the URL points at a private address or does not resolve, a rotation raced another,
 * or the endpoint is disabled. `api/refusals.ts` gives each its code.
 */
export type WebhookRefusalReason = 'webhook_limit_reached' | 'webhook_url_private' | 'webhook_url_unresolvable' | 'webhook_secret_rotating' | 'webhook_disabled';

export class WebhookRefusal extends Refusal<WebhookRefusalReason> {
  override readonly name = 'WebhookRefusal';
}
