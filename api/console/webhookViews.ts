import { z } from 'zod';
import type { SuccessRate } from '../../src/webhooks/attemptTallies';
import type { AttemptRecord, WebhookDeliveryDoc } from '../../src/webhooks/deliveries';
import type { WebhookEndpointDoc } from '../../src/webhooks/endpoints';
import { formatTimestamp } from '../format';

/**
 * How the console shows webhook endpoints and deliveries; never a secret, except once when
 * issued. Each view is typed by its response schema, which the routes declare.
 */

const timestamp = z.string().nullable();

export const webhookRecord = z.object({
  webhook_id: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  enabled: z.boolean(),
  description: z.string().nullable(),
  previous_secret_expires_at: timestamp,
  created_at: timestamp,
  updated_at: timestamp,
  /** Of the attempts sent to it in the last `hours` hours, how many its receiver answered 2xx (src/webhooks/attemptTallies.ts). */
  success_rate: z.object({
    hours: z.number().int(),
    attempts: z.number().int(),
    succeeded: z.number().int(),
    /** succeeded / attempts in percent, to one decimal; null when nothing was sent. */
    percent: z.number().nullable(),
  }),
});

/** An endpoint as created or rotated: its signing secret, shown this once. */
export const issuedWebhookRecord = webhookRecord.extend({ secret: z.string() });

export const attemptRecord = z.object({
  attempt: z.number().int(),
  attempted_at: timestamp,
  url: z.string(),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().nullable(),
  error: z.string().nullable(),
  response_body: z.string().nullable(),
});

/** A delivery; `attempts` only where one delivery is read (not in the list). */
export const deliveryRecord = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  trigger: z.enum(['event', 'replay', 'test']),
  status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
  attempt_count: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: timestamp,
  cancel_reason: z.string().nullable(),
  created_at: timestamp,
  completed_at: timestamp,
  attempts: z.array(attemptRecord).optional(),
});

export const webhookView = (w: WebhookEndpointDoc, now: Date, rate: SuccessRate): z.infer<typeof webhookRecord> => ({
  webhook_id: w._id,
  url: w.url,
  event_types: w.event_types,
  enabled: w.enabled,
  description: w.description,
  /** Until then the previous secret still signs deliveries alongside the current one. */
  previous_secret_expires_at:
    w.previous_secret_expires_at && w.previous_secret_expires_at.getTime() > now.getTime() ? formatTimestamp(w.previous_secret_expires_at) : null,
  created_at: formatTimestamp(w.created_at),
  updated_at: formatTimestamp(w.updated_at),
  success_rate: { ...rate, percent: rate.attempts === 0 ? null : Math.round((rate.succeeded / rate.attempts) * 1000) / 10 },
});

export const attemptView = (a: AttemptRecord): z.infer<typeof attemptRecord> => ({
  attempt: a.attempt,
  attempted_at: formatTimestamp(a.attempted_at),
  url: a.url,
  status_code: a.status_code,
  duration_ms: a.duration_ms,
  error: a.error,
  response_body: a.response_body,
});

/** Fields FerretDB may have left out (an upsert drops `null` from `$setOnInsert`) read as null. */
export const deliveryView = (d: WebhookDeliveryDoc, withAttempts: boolean): z.infer<typeof deliveryRecord> => ({
  delivery_id: d._id,
  webhook_id: d.endpoint_id,
  event_id: d.event_id,
  event_type: d.event_type,
  trigger: d.trigger,
  status: d.status,
  attempt_count: d.attempt_count ?? 0,
  last_status_code: d.last_status_code ?? null,
  last_error: d.last_error ?? null,
  next_attempt_at: formatTimestamp(d.next_attempt_at),
  cancel_reason: d.cancel_reason ?? null,
  created_at: formatTimestamp(d.created_at),
  completed_at: formatTimestamp(d.completed_at),
  ...(withAttempts ? { attempts: (d.attempts ?? []).map(attemptView) } : {}),
});
