import { newWebhookEndpoint, webhookEndpoints, type WebhookEndpointDoc } from '../../src/webhooks/endpoints';
import type { Db } from 'mongodb';
import { uniqueName } from './env';

/**
 * Documents as the console would store them, for tests that set state up directly. A call
 * document comes from the production builder (newCallDoc in src/calls/callStore.ts).
 */

/** An enabled endpoint for every event type with a fresh secret; `overrides` replace fields. */
export function newWebhookEndpointDoc(tenantId: string, url: string, overrides: Partial<WebhookEndpointDoc> = {}): WebhookEndpointDoc {
  return { ...newWebhookEndpoint({ _id: uniqueName('whk'), tenant_id: tenantId, url }, new Date()), ...overrides };
}

/** newWebhookEndpointDoc, inserted. */
export async function insertWebhookEndpoint(db: Db, tenantId: string, url: string, overrides: Partial<WebhookEndpointDoc> = {}): Promise<WebhookEndpointDoc> {
  const doc = newWebhookEndpointDoc(tenantId, url, overrides);
  await webhookEndpoints(db).insertOne(doc);
  return doc;
}
