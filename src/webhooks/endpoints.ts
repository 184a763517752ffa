import type { Collection, Db } from 'mongodb';
import { newSigningSecret } from './signature';

/** A workspace's webhook endpoint, managed in the console. */
export interface WebhookEndpointDoc {
  /** `whk_…` */
  _id: string;
  tenant_id: string;
  url: string;
  /** Subscribed types; `[]` means every subscribable type, including ones added later. */
  event_types: string[];
  enabled: boolean;
  description: string | null;
  /** `whsec_…`: shown once, when created or rotated; every delivery is signed with it. */
  secret: string;
  /** The secret before the last rotation, still signing alongside the new one until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A new endpoint with a fresh signing secret and no previous one, as the console creates it;
 * set-ups that store one directly (tests, the webhook benchmark) build it here too.
 */
export function newWebhookEndpoint(
  fields: Pick<WebhookEndpointDoc, '_id' | 'tenant_id' | 'url'> & Partial<Pick<WebhookEndpointDoc, 'event_types' | 'enabled' | 'description'>>,
  now: Date,
): WebhookEndpointDoc {
  return {
    event_types: [],
    enabled: true,
    description: null,
    ...fields,
    secret: newSigningSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
  };
}

export const MAX_ENDPOINTS_PER_WORKSPACE = 20;

/** How long a rotated-out secret keeps signing next to the new one. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

export function webhookEndpoints(db: Db): Collection<WebhookEndpointDoc> {
  return db.collection<WebhookEndpointDoc>('webhook_endpoints');
}

/** The secrets a delivery at `now` is signed with: the current one, and the previous one during its grace. */
export function signingSecrets(endpoint: WebhookEndpointDoc, now: Date): string[] {
  const previousLive =
    endpoint.previous_secret !== null &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at.getTime() > now.getTime();
  return previousLive ? [endpoint.secret, endpoint.previous_secret!] : [endpoint.secret];
}
