/**
 * What the event fan-out and webhook delivery workflows share with the API, the worker and
 * their activities: inputs, results, workflow ids and the retry schedule.
 * Imported by workflow code: no Node built-ins, no I/O.
 */

/** The fan-out workflow's name; src/events/dispatcher.ts starts it by this name. */
export const DISPATCH_EVENT_WORKFLOW_NAME = 'dispatchEvent';

export interface DispatchEventInput {
  eventId: string;
  tenantId: string;
}

export interface DispatchEventResult {
  /** The endpoints the event was handed to. */
  endpointIds: string[];
}

export type DeliveryTrigger = 'event' | 'replay' | 'test';

export interface DeliverWebhookInput {
  /** Also the workflow id and the delivery record's id. */
  deliveryId: string;
  tenantId: string;
  eventId: string;
  endpointId: string;
  trigger: DeliveryTrigger;
}

export interface DeliverWebhookResult {
  status: 'succeeded' | 'cancelled';
  attempts: number;
}

/** One attempt's instructions: which attempt it is, and how long the workflow waits after it if it fails. */
export interface AttemptInput extends DeliverWebhookInput {
  attempt: number;
  /** null on the last attempt: a failure then fails the delivery. */
  retryDelayMs: number | null;
}

export interface AttemptResult {
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  statusCode: number | null;
  error: string | null;
}

/**
 * The wait after each failed attempt: attempt 1 at once, then 5 s, 30 s, 2 min, 10 min,
 * 30 min, 1 h, 2 h, 4 h, 6 h, 8 h and 8 h; twelve attempts over 29 h 42 min 35 s, after
 * which the delivery is failed. docs/webhooks.md prints this table.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 60 * 60_000,
  4 * 60 * 60_000,
  6 * 60 * 60_000,
  8 * 60 * 60_000,
  8 * 60 * 60_000,
];

export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An answer must arrive (and be 2xx) within this long. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** The failure type of a delivery that exhausted its schedule (its workflow fails with it). */
export const DELIVERY_FAILED = 'WebhookDeliveryFailed';

/**
 * One delivery per (event, endpoint) from the fan-out: a repeated fan-out of the same event
 * (the sweeper, a retried producer) is refused by the engine instead of delivering twice.
 */
export function deliveryWorkflowId(eventId: string, endpointId: string): string {
  return `${eventId}:${endpointId}`;
}

/** A console replay is a delivery of its own, next to the original. */
export function replayWorkflowId(eventId: string, endpointId: string, replayId: string): string {
  return `${eventId}:${endpointId}:${replayId}`;
}
