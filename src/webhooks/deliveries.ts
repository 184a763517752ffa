import type { Collection, Db } from 'mongodb';
import { upsertOne } from '../db/upsert';

/**
 * One (event, endpoint) delivery and every attempt at it: the read model of a delivery
 * workflow, written by its activities, read by the console. Its `_id` is the workflow id.
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** What started the delivery: the event's fan-out, a console replay, or the console's test action. */
export type DeliveryTrigger = 'event' | 'replay' | 'test';

export interface AttemptRecord {
  /** 1-based, assigned by the workflow: a retried activity records the same attempt once. */
  attempt: number;
  /** When the request was sent (the signature's timestamp). */
  attempted_at: Date;
  url: string;
  /** null when no HTTP answer came. */
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
}

export interface WebhookDeliveryDoc {
  _id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  /** Absent until the first attempt is recorded (FerretDB drops `[]` from an upsert's insert). */
  attempts?: AttemptRecord[];
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  /** When the next attempt is due while `pending` after a failure; null otherwise. */
  next_attempt_at: Date | null;
  /** Why a delivery was cancelled: `endpoint_deleted` or `endpoint_disabled`. */
  cancel_reason: string | null;
  created_at: Date;
  completed_at: Date | null;
  /**
   * Where the endpoint's workflow queued this delivery for its next attempt (set by the
   * drain that placed it). A drain that finds the delivery already placed by an earlier
   * drain skips it (a duplicate signal); one that finds it placed at or past the queue's
   * tail it was given is a re-run of the drain that placed it, and keeps the place.
   */
  queue_slot?: { attempt: number; seq: number };
}

export function webhookDeliveries(db: Db): Collection<WebhookDeliveryDoc> {
  return db.collection<WebhookDeliveryDoc>('webhook_deliveries');
}

/** One delivery of an endpoint of the workspace, or null. */
export async function findEndpointDelivery(db: Db, tenantId: string, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDoc | null> {
  return webhookDeliveries(db).findOne({ _id: deliveryId, tenant_id: tenantId, endpoint_id: endpointId });
}

export interface DeliveryIdentity {
  deliveryId: string;
  tenantId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  trigger: DeliveryTrigger;
}

/** What a delivery record is created with, whichever write creates it. */
function identityOnInsert(who: DeliveryIdentity, now: Date) {
  return {
    tenant_id: who.tenantId,
    endpoint_id: who.endpointId,
    event_id: who.eventId,
    event_type: who.eventType,
    trigger: who.trigger,
    created_at: now,
  };
}

export interface AttemptOutcome {
  attempt: AttemptRecord;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

/**
 * Appends an attempt and moves the delivery to its new status, in one single-document
 * write by `_id` alone (creating the delivery on its first attempt). The filter is `_id`
 * only because FerretDB on SQLite scans the whole collection for any other condition, which
 * made every write cost as much as the collection is large. Each attempt number has one
 * writer: the endpoint's drain (src/webhooks/drain.ts; one at a time per endpoint, and a
 * re-run first reads whether the attempt was recorded), or, for deliveries started before
 * issue 13, the attempt's activity or recordLostWebhookAttempt, which read first too.
 */
export async function recordAttempt(db: Db, who: DeliveryIdentity, outcome: AttemptOutcome, now: Date): Promise<void> {
  // Two first writes racing to insert (never expected: one writer per attempt) repeat as an update.
  const [filter, update] = recordAttemptUpdate(who, outcome, now);
  await upsertOne(webhookDeliveries(db), filter, update);
}

/**
 * A delivery created by its first attempt, as one document: an insert costs FerretDB less
 * than recordAttempt's upsert, for a writer that has just read that the delivery is absent.
 */
export function firstAttemptDoc(who: DeliveryIdentity, outcome: AttemptOutcome, now: Date): WebhookDeliveryDoc {
  return {
    _id: who.deliveryId,
    ...identityOnInsert(who, now),
    status: outcome.status,
    attempts: [outcome.attempt],
    attempt_count: 1,
    last_status_code: outcome.attempt.status_code,
    last_error: outcome.attempt.error,
    next_attempt_at: outcome.nextAttemptAt,
    cancel_reason: null,
    completed_at: outcome.completedAt,
  };
}

/** recordAttempt's write: filter, update and options, also for a bulk write of many deliveries. */
export function recordAttemptUpdate(who: DeliveryIdentity, outcome: AttemptOutcome, now: Date) {
  return [
    { _id: who.deliveryId },
    {
      $setOnInsert: identityOnInsert(who, now),
      $set: {
        status: outcome.status,
        last_status_code: outcome.attempt.status_code,
        last_error: outcome.attempt.error,
        next_attempt_at: outcome.nextAttemptAt,
        completed_at: outcome.completedAt,
        cancel_reason: null,
      },
      $push: { attempts: outcome.attempt },
      $inc: { attempt_count: 1 },
    },
    { upsert: true },
  ] as const satisfies Parameters<Collection<WebhookDeliveryDoc>['updateOne']>;
}

/** Ends a delivery without an attempt (its endpoint was deleted or disabled). */
export async function cancelDelivery(db: Db, who: DeliveryIdentity, reason: string, now: Date): Promise<void> {
  await webhookDeliveries(db).updateOne(...cancelDeliveryUpdate(who, reason, now));
}

/** cancelDelivery's write, also for a bulk write. */
export function cancelDeliveryUpdate(who: DeliveryIdentity, reason: string, now: Date) {
  return [
    { _id: who.deliveryId },
    {
      $setOnInsert: { ...identityOnInsert(who, now), attempt_count: 0 },
      $set: { status: 'cancelled' as const, cancel_reason: reason, next_attempt_at: null, completed_at: now },
    },
    { upsert: true },
  ] as const satisfies Parameters<Collection<WebhookDeliveryDoc>['updateOne']>;
}
