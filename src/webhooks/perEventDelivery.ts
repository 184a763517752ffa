import type { Db } from 'mongodb';
import { eventsCollection } from '../events/eventStore';
import { endpointReceives } from '../events/types';
import { sendAttempt } from './attempt';
import type { AttemptInput, AttemptResult, DispatchEventInput, DispatchEventResult } from './contracts';
import { cancelDelivery, recordAttempt, webhookDeliveries, type DeliveryIdentity } from './deliveries';
import { webhookEndpoints } from './endpoints';

/**
 * Delivery as it ran before issue 13: a workflow per event that listed the endpoints, then one
 * activity per attempt. New events go through each endpoint's drain (drain.ts); these steps
 * stay for the runs started before it, whose histories name them.
 */

export interface PerEventDeliveryDeps {
  db: Db;
  allowPrivate: boolean;
  now: () => Date;
  /** Aborts an attempt's request (the activity's cancellation). */
  signal?: AbortSignal;
}

export function perEventDelivery({ db, allowPrivate, now, signal }: PerEventDeliveryDeps) {
  const events = eventsCollection(db);
  const endpoints = webhookEndpoints(db);

  /** The delivery's identity, with the event's type; null when the event is gone (never expected). */
  async function identify(input: AttemptInput): Promise<{ who: DeliveryIdentity; payload: string } | null> {
    const event = await events.findOne({ _id: input.eventId });
    if (!event || event.tenant_id !== input.tenantId) return null;
    return {
      who: { deliveryId: input.deliveryId, tenantId: input.tenantId, endpointId: input.endpointId, eventId: input.eventId, eventType: event.type, trigger: input.trigger },
      payload: event.payload,
    };
  }

  const statusAfterFailure = (input: AttemptInput) => (input.retryDelayMs === null ? 'failed' : 'pending');

  /** The outcome of this attempt number if it was recorded already (an earlier run died after recording). */
  async function recordedOutcome(input: AttemptInput): Promise<AttemptResult | null> {
    const doc = await webhookDeliveries(db).findOne({ _id: input.deliveryId }, { projection: { status: 1, attempts: 1 } });
    const mine = doc?.attempts?.find((a) => a.attempt === input.attempt);
    return doc && mine ? { status: doc.status, statusCode: mine.status_code, error: mine.error } : null;
  }

  return {
    /**
     * Before issue 13 (dispatchEvent): the enabled endpoints of the event's workspace that
     * receive its type. A read only, so safe to retry; an endpoint added after this ran does
     * not get the event.
     */
    async listTargets(input: DispatchEventInput): Promise<DispatchEventResult> {
      const event = await events.findOne({ _id: input.eventId });
      if (!event || event.tenant_id !== input.tenantId) return { endpointIds: [] };
      const candidates = await endpoints
        .find({ tenant_id: input.tenantId, enabled: true }, { projection: { _id: 1, event_types: 1 } })
        .sort({ created_at: 1, _id: 1 })
        .toArray();
      return { endpointIds: candidates.filter((e) => endpointReceives(e.event_types, event.type)).map((e) => e._id) };
    },

    /**
     * Before issue 13 (deliverWebhook): one attempt (a local activity): POST the event's
     * stored bytes, signed now, to the endpoint's current URL, and record the answer. Not
     * retried by the SDK (the workflow owns the schedule). Run again for the same attempt number (its worker died before the
     * workflow task completed), it returns the recorded answer if there is one and sends
     * nothing; if the first run died mid-request the receiver may get the event twice (at
     * least once), and the attempt is recorded once.
     */
    async attempt(input: AttemptInput): Promise<AttemptResult> {
      const found = await identify(input);
      if (!found) return { status: 'cancelled', statusCode: null, error: 'event not found' };
      const { who, payload } = found;
      // Run again after its worker died before the workflow saw the result: the answer it got stands.
      const recorded = await recordedOutcome(input);
      if (recorded) return recorded;
      const endpoint = await endpoints.findOne({ _id: input.endpointId });
      if (!endpoint || endpoint.tenant_id !== input.tenantId || !endpoint.enabled) {
        const reason = endpoint && endpoint.tenant_id === input.tenantId ? 'endpoint_disabled' : 'endpoint_deleted';
        await cancelDelivery(db, who, reason, now());
        return { status: 'cancelled', statusCode: null, error: reason };
      }

      const sent = await sendAttempt({ endpoint, eventId: input.eventId, payload, attempt: input.attempt, allowPrivate, signal, now });
      const status = sent.ok ? 'succeeded' : statusAfterFailure(input);
      const doneAt = now();
      await recordAttempt(
        db,
        who,
        {
          attempt: sent.record,
          status,
          nextAttemptAt: status === 'pending' ? new Date(doneAt.getTime() + input.retryDelayMs!) : null,
          completedAt: status === 'pending' ? null : doneAt,
        },
        doneAt,
      );
      return { status, statusCode: sent.record.status_code, error: sent.record.error };
    },

    /**
     * Before issue 13 (deliverWebhook): records an attempt whose activity never reported (its
     * worker died, or it overran its deadline). If that activity did record before dying, its record and outcome stand (a
     * 2xx it got is a success, not a reason to send again).
     */
    async recordLostAttempt(input: AttemptInput & { error: string }): Promise<AttemptResult> {
      const found = await identify(input);
      if (!found) return { status: 'cancelled', statusCode: null, error: 'event not found' };
      const recorded = await recordedOutcome(input);
      if (recorded) return recorded;
      const at = now();
      const status = statusAfterFailure(input);
      const endpoint = await endpoints.findOne({ _id: input.endpointId });
      await recordAttempt(
        db,
        found.who,
        {
          attempt: { attempt: input.attempt, attempted_at: at, url: endpoint?.url ?? '', status_code: null, duration_ms: null, error: input.error, response_body: null },
          status,
          nextAttemptAt: status === 'pending' ? new Date(at.getTime() + input.retryDelayMs!) : null,
          completedAt: status === 'pending' ? null : at,
        },
        at,
      );
      return { status, statusCode: null, error: input.error };
    },
  };
}
