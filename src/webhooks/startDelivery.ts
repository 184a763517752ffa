import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import type { DeliverWebhookInput } from './contracts';
import { webhookDeliveries, type WebhookDeliveryDoc } from './deliveries';
import { deliveryEntries, deliveryStatusEntries, entryOf, statusEntryOf } from './deliveryEntries';
import { handOver } from './deliverySignals';
import { createInboxClaimer } from './inbox';

/**
 * Starts one delivery outside the publisher (a console replay or test), recording it as
 * pending first so the console shows it before its first attempt, then handing it to the
 * endpoint (its inbox, and a wake-up if its workflow sleeps: src/webhooks/deliverySignals.ts). Its id is fresh per request, so each replay is a delivery of
 * its own.
 */
export async function startDelivery(
  db: Db,
  temporal: Client,
  taskQueue: string,
  input: DeliverWebhookInput & { eventType: string },
  now: Date,
): Promise<WebhookDeliveryDoc> {
  const doc: WebhookDeliveryDoc = {
    _id: input.deliveryId,
    tenant_id: input.tenantId,
    endpoint_id: input.endpointId,
    event_id: input.eventId,
    event_type: input.eventType,
    trigger: input.trigger,
    status: 'pending',
    attempts: [],
    attempt_count: 0,
    last_status_code: null,
    last_error: null,
    next_attempt_at: null,
    cancel_reason: null,
    created_at: now,
    completed_at: null,
  };
  // The console list's entry first (src/webhooks/deliveryEntries.ts): if the record was there
  // already, the list drops this one (another time) and keeps the record's own.
  await insertIfAbsent(deliveryEntries(db), entryOf(doc));
  await insertIfAbsent(deliveryStatusEntries(db), statusEntryOf(entryOf(doc)));
  await insertIfAbsent(webhookDeliveries(db), doc);
  await handOver(createInboxClaimer(db), temporal, taskQueue, input.tenantId, input.endpointId, [{ deliveryId: input.deliveryId, eventId: input.eventId, trigger: input.trigger }]);
  return doc;
}
