/**
 * What the event fan-out and webhook delivery workflows share with the API, the event
 * dispatcher and their activities: inputs, results, workflow types, workflow ids and the
 * retry schedule.
 *
 * Imported by workflow code: no Node built-ins, no I/O.
 */
import { defineWorkflow } from '../temporal/workflowDefinition';

export interface DispatchEventInput {
  eventId: string;
  tenantId: string;
}

export interface DispatchEventResult {
  /** The endpoints the event was handed to. */
  endpointIds: string[];
}

export type DispatchEvent = (input: DispatchEventInput) => Promise<DispatchEventResult>;
/** Fans one stored event out to its endpoints (workflows/dispatchEvent.ts); its id is the event id. */
export const dispatchEventDefinition = defineWorkflow<DispatchEvent>('dispatchEvent');

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

export type DeliverWebhook = (input: DeliverWebhookInput) => Promise<DeliverWebhookResult>;
/** Delivers one event to one endpoint on the retry schedule (workflows/deliverWebhook.ts). */
export const deliverWebhookDefinition = defineWorkflow<DeliverWebhook>('deliverWebhook');

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
 * which the delivery is failed (FailureType.WebhookDeliveryFailed). docs/webhooks.md prints
 * this table.
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
