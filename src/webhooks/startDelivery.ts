import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { startWorkflow } from '../temporal/startWorkflow';
import { deliverWebhookDefinition, type DeliverWebhookInput } from './contracts';
import { webhookDeliveries, type WebhookDeliveryDoc } from './deliveries';

/**
 * Starts one delivery outside the fan-out (a console replay or test), recording it as
 * pending first so the console shows it before its first attempt. Its id is fresh per
 * request, so each replay is a delivery of its own.
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
  await insertIfAbsent(webhookDeliveries(db), doc);
  const { eventType: _type, ...args } = input;
  await startWorkflow(temporal, deliverWebhookDefinition, {
    workflowId: input.deliveryId,
    taskQueue,
    args: [args],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
  return doc;
}
