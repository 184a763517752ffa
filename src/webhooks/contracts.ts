/**
 * What the webhook delivery workflows share with the API, the event dispatcher and their
 * activities: inputs, results, signals, workflow types, workflow ids and the retry schedule.
 *
 * Deliveries run in one long-lived workflow per endpoint (`endpointDeliveries`). The
 * per-event fan-out (`dispatchEvent`) and per-delivery (`deliverWebhook`) workflows are no
 * longer started; they stay hosted so runs started by an earlier release finish.
 *
 * Imported by workflow code: no Node built-ins, no I/O.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
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
/** Before issue 13: fanned one event out to its endpoints (workflows/webhooks/dispatchEvent.ts). No longer started. */
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
/** Before issue 13: one delivery's workflow (workflows/webhooks/deliverWebhook.ts). No longer started. */
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

/** One delivery handed to an endpoint's workflow: a signal carries these, a queue entry stores one. */
export interface DeliveryRef {
  /** The delivery record's id: `deliveryWorkflowId(event, endpoint)`, or a replay's / test's id. */
  deliveryId: string;
  eventId: string;
  trigger: DeliveryTrigger;
}

/**
 * One of an endpoint's retry queues, as its workflow keeps it: the entries waiting for
 * attempt `attempt` (2 to 12; 1 holds new deliveries parked when the workflow's inbox was
 * full) live in MongoDB under `_id`s `webhookQueueEntryId(endpoint, attempt, seq)` for seq in
 * [head, tail). Entries are appended in the order they fall due, so the head is the next due.
 */
export interface RetryQueue {
  attempt: number;
  head: number;
  tail: number;
  /** When the head entry falls due (ms since the epoch, server clock); 0 = read it at the next drain; null when empty. */
  headDueAt: number | null;
}

/** What an endpoint's deliveries reached, summed over its runs (carried across continue-as-new). */
export interface EndpointDeliveryTotals {
  attempts: number;
  succeeded: number;
  failed: number;
  cancelled: number;
}

export interface EndpointDeliveriesInput {
  endpointId: string;
  tenantId: string;
  /** Continue as new past this many history events; tests set it low, publishers leave it to the workflow's default. */
  historyLimit?: number;
  /** Carried across continue-as-new; absent on a fresh start. */
  carried?: {
    inbox: DeliveryRef[];
    queues: RetryQueue[];
    totals: EndpointDeliveryTotals;
    /** The MongoDB inbox's next slot to read (runs since issue 28; absent: read it from the inbox state). */
    inboxHead?: number;
    /** Every inbox slot below this was deleted. */
    inboxDeletedUpTo?: number;
  };
}

export type EndpointDeliveries = (input: EndpointDeliveriesInput) => Promise<EndpointDeliveryTotals>;
/**
 * Delivers everything to one endpoint (workflows/webhooks/endpointDeliveries.ts): started (or woken)
 * by `deliverSignal` through signal-with-start, it drains in batches, keeps each delivery's
 * retry schedule in MongoDB queues, continues as new, and closes once idle.
 */
export const endpointDeliveriesDefinition = defineWorkflow<EndpointDeliveries>('endpointDeliveries');

/**
 * Hands deliveries to an endpoint's workflow: what publishers sent before issue 28, and what
 * they still send to an endpoint whose inbox state is absent (a run of an earlier release may
 * be live, one that does not read the MongoDB inbox).
 */
export const deliverSignal = defineSignal<[DeliveryRef[]]>('deliver');

/**
 * Since issue 28: "the inbox has new entries" (src/webhooks/inbox.ts). Sent only when the
 * inbox state says the workflow went idle; losing it costs latency, never a delivery.
 */
export const wakeSignal = defineSignal('wake');

/** An endpoint workflow's run reads its MongoDB inbox from this patch on (histories before it replay the old loop). */
export const INBOX_PATCH = 'webhook-inbox-in-mongodb';

/** What the endpoint's deliveries reached so far (also its result when a run closes idle). */
export const deliveryTotalsQuery = defineQuery<EndpointDeliveryTotals>('deliveryTotals');

/** One workflow per endpoint: every publisher signals the same id. */
export function endpointWorkflowId(endpointId: string): string {
  return `webhooks:${endpointId}`;
}

/** A retry queue entry's `_id`: read by `_id` alone (the one read FerretDB answers from an index). */
export function webhookQueueEntryId(endpointId: string, attempt: number, seq: number): string {
  return `${endpointId}:${attempt}:${seq}`;
}

/**
 * An inbox entry's `_id`: the endpoint's new deliveries in claim order, slot `seq` claimed by a
 * unique insert (src/webhooks/inbox.ts), read by `_id` from the drain's head.
 */
export function webhookInboxEntryId(endpointId: string, seq: number): string {
  return `${endpointId}:${seq}`;
}

/** Empty queues for attempts 1 (parked new deliveries) to 12. */
export function emptyRetryQueues(): RetryQueue[] {
  return Array.from({ length: MAX_DELIVERY_ATTEMPTS }, (_, i) => ({ attempt: i + 1, head: 0, tail: 0, headDueAt: null }));
}

/** The input of one drain (an activity): new deliveries to attempt now, ones to park, and the queues. */
export interface DrainInput {
  endpointId: string;
  tenantId: string;
  /** Attempted now (attempt 1), at most DRAIN_BATCH. */
  fresh: DeliveryRef[];
  /** Written to the attempt-1 queue untried: the inbox held more than INBOX_LIMIT. */
  park: DeliveryRef[];
  queues: RetryQueue[];
  /**
   * The workflow's time when it asked for the drain (ms): the schedule's clock, so due times
   * follow workflow time (which the time-skipping test server moves on) and not only the
   * worker's wall clock.
   */
  now: number;
  /**
   * Since issue 28: also take new deliveries from the endpoint's MongoDB inbox from slot
   * `head` (null: a new run that does not know it yet; the drain only reads it from the
   * inbox state). `mayIdle` false: the run hands over next, so the drain must not tell
   * publishers it sleeps (they would signal a workflow mid-hand-over). Slots in
   * [deleteFrom, deleteTo) are deleted: they were taken by drains whose results the
   * workflow's history holds, so no re-run of a drain needs them again.
   */
  inbox?: { head: number | null; mayIdle: boolean; deleteFrom: number; deleteTo: number };
}

export interface DrainResult {
  queues: RetryQueue[];
  totals: EndpointDeliveryTotals;
  /**
   * With `inbox` in the input: the next slot to read, whether the inbox was found empty (the
   * state says idle if allowed), and the slot below which every entry is deleted.
   */
  inbox?: { head: number; empty: boolean; deletedUpTo: number };
}

/**
 * At most this many new deliveries (the workflow's and its inbox's), and this many from the
 * queues, per drain: with DRAIN_PARALLELISM POSTs at once, a drain against a receiver that
 * never answers lasts at most 4 × the attempt timeout (the drain's deadline in
 * workflows/webhooks/activityOptions.ts). Issue 28 doubled both (from 32 and 16): a 500-event burst
 * went from about 360 to about 600 deliveries/s.
 */
export const DRAIN_BATCH = 64;
/** POSTs in flight at once per endpoint. */
export const DRAIN_PARALLELISM = 32;
/** New deliveries the workflow keeps in its own state; more are parked in MongoDB (attempt-1 queue). */
export const INBOX_LIMIT = 500;
/**
 * A drain that finds the MongoDB inbox empty looks again every INBOX_LINGER_POLL_MS for the
 * first INBOX_LINGER_FAST_MS, then every INBOX_LINGER_SLOW_POLL_MS up to INBOX_LINGER_MS, before
 * it tells publishers the workflow sleeps: at a steady rate the next delivery usually lands
 * meanwhile and costs no wake-up signal (at most 9 point reads per idle spell). 300 ms rather
 * than 100 (issue 36 §3): twenty endpoints at 10 a second each saw gaps past 100 ms under load,
 * and each woke its workflow through the Temporal server, the slowest deliveries of the phase.
 */
export const INBOX_LINGER_MS = 300;
export const INBOX_LINGER_FAST_MS = 100;
export const INBOX_LINGER_POLL_MS = 20;
export const INBOX_LINGER_SLOW_POLL_MS = 50;
/** At most this many inbox slots deleted per drain (one `_id $in` delete; FerretDB takes up to 1,000 from its index). */
export const INBOX_DELETE_BATCH = 512;
