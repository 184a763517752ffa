import type { Db } from 'mongodb';
import { appendEvent, type EventDoc } from '../../../src/events/eventStore';
import {
  DRAIN_BATCH,
  RETRY_DELAYS_MS,
  deliveryWorkflowId,
  emptyRetryQueues,
  webhookQueueEntryId,
  type DeliveryRef,
  type DrainInput,
  type RetryQueue,
} from '../../../src/webhooks/contracts';
import { webhookDeliveries } from '../../../src/webhooks/deliveries';
import { drainEndpoint } from '../../../src/webhooks/drain';
import { webhookEndpoints, type WebhookEndpointDoc } from '../../../src/webhooks/endpoints';
import { webhookQueue } from '../../../src/webhooks/retryQueue';
import { verify } from '../../../src/webhooks/verify';
import { newWebhookEndpointDoc } from '../../support/documents';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * One drain of an endpoint's deliveries (src/webhooks/drain.ts) against FerretDB and a local
 * receiver, without Temporal: what it sends, records and queues, and that running it again
 * (a worker died), or handing it a delivery twice (a repeated signal), sends nothing twice.
 */
describe('an endpoint drain', () => {
  let store: Awaited<ReturnType<typeof openTestDb>>;
  let db: Db;
  let receiver: WebhookReceiver;
  let clockMs = Date.now();
  const deps = () => ({ db: store.db, allowPrivate: true, clock: () => clockMs, now: () => new Date() });

  beforeAll(async () => {
    store = await openTestDb(testConfig());
    db = store.db;
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await store?.drop();
  });

  async function setUp(path: string, count: number, options: Partial<WebhookEndpointDoc> = {}) {
    const tenantId = uniqueName('ws');
    const now = new Date();
    const endpoint = newWebhookEndpointDoc(tenantId, receiver.url(path), options);
    await webhookEndpoints(db).insertOne(endpoint);
    const events: EventDoc[] = [];
    for (let i = 0; i < count; i++) events.push(await appendEvent(db, { tenantId, type: 'ticket.created', dedupeKey: `t:${i}`, data: { ticket_id: `tkt_${i}` }, createdAt: now }));
    const refs: DeliveryRef[] = events.map((e) => ({ deliveryId: deliveryWorkflowId(e._id, endpoint._id), eventId: e._id, trigger: 'event' }));
    const input = (over: Partial<DrainInput> = {}): DrainInput => ({ endpointId: endpoint._id, tenantId, fresh: [], park: [], queues: emptyRetryQueues(), now: clockMs, ...over });
    return { endpoint, events, refs, input, arrived: () => receiver.received.filter((r) => r.path === path) };
  }

  const attemptQueue = (queues: RetryQueue[], attempt: number) => queues[attempt - 1]!;

  it('sends new deliveries, records each attempt, and queues a failure for its next attempt at the schedule', async () => {
    const { endpoint, events, refs, input, arrived } = await setUp('/fails-once', 3);
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/fails-once' ? (arrived().filter((a) => a.headers['webhook-id'] === r.headers['webhook-id']).length === 1 ? 503 : 200) : previous(r, i));
    try {
      const first = await drainEndpoint(deps(), input({ fresh: refs }));
      expect(first.totals).toEqual({ attempts: 3, succeeded: 0, failed: 0, cancelled: 0 });
      expect(arrived()).toHaveLength(3);
      for (const a of arrived()) expect(a.body.toString('utf8')).toBe(events.find((e) => e._id === a.headers['webhook-id'])!.payload);
      const second = attemptQueue(first.queues, 2);
      expect(second).toMatchObject({ head: 0, tail: 3 });
      expect(second.headDueAt).toBeGreaterThanOrEqual(clockMs + RETRY_DELAYS_MS[0]!);
      for (const ref of refs) {
        const record = await webhookDeliveries(db).findOne({ _id: ref.deliveryId });
        expect(record).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: 503, queue_slot: { attempt: 2, seq: expect.any(Number) } });
        expect(await webhookQueue(db).findOne({ _id: webhookQueueEntryId(endpoint._id, 2, record!.queue_slot!.seq) })).toMatchObject({ delivery_id: ref.deliveryId, attempt: 2 });
      }

      // Not due yet: nothing is sent.
      const early = await drainEndpoint(deps(), input({ queues: first.queues }));
      expect(early.queues).toEqual(first.queues);
      expect(arrived()).toHaveLength(3);

      // Due: the second attempts succeed, the entries are gone, the queue is empty.
      clockMs += RETRY_DELAYS_MS[0]! + 1_000;
      const due = await drainEndpoint(deps(), input({ queues: first.queues }));
      expect(due.totals).toEqual({ attempts: 3, succeeded: 3, failed: 0, cancelled: 0 });
      expect(attemptQueue(due.queues, 2)).toEqual({ attempt: 2, head: 3, tail: 3, headDueAt: null });
      expect(arrived()).toHaveLength(6);
      for (const a of arrived()) expect(verify(a.body, a.headers, endpoint.secret).tenant_id).toBe(endpoint.tenant_id);
      for (const ref of refs) expect(await webhookDeliveries(db).findOne({ _id: ref.deliveryId })).toMatchObject({ status: 'succeeded', attempt_count: 2 });
      expect(await webhookQueue(db).countDocuments({ endpoint_id: endpoint._id })).toBe(0);
    } finally {
      receiver.answer = previous;
    }
  });

  it('run again with the same input (its worker died) sends nothing twice and keeps each place', async () => {
    const { endpoint, refs, input, arrived } = await setUp('/down', 4);
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/down' ? 500 : previous(r, i));
    try {
      const same = input({ fresh: refs });
      const first = await drainEndpoint(deps(), same);
      // The first run's result never reached the workflow; the same drain runs again.
      const again = await drainEndpoint(deps(), same);
      expect(arrived()).toHaveLength(4);
      expect(again.queues).toEqual(first.queues);
      expect(await webhookQueue(db).countDocuments({ endpoint_id: endpoint._id })).toBe(4);
      for (const ref of refs) expect((await webhookDeliveries(db).findOne({ _id: ref.deliveryId }))!.attempts).toHaveLength(1);

      // A delivery signalled again later (the sweeper re-dispatched its event) is recognised: not sent, not queued twice.
      const repeated = await drainEndpoint(deps(), input({ fresh: refs, queues: first.queues }));
      expect(repeated.queues).toEqual(first.queues);
      expect(repeated.totals.attempts).toBe(0);
      expect(arrived()).toHaveLength(4);
    } finally {
      receiver.answer = previous;
    }
  });

  it('parks what the inbox cannot hold in the attempt-1 queue and drains it from there, a batch at a time', async () => {
    const { endpoint, refs, input, arrived } = await setUp('/parked', DRAIN_BATCH + 3);
    const parked = await drainEndpoint(deps(), input({ park: refs }));
    expect(arrived()).toHaveLength(DRAIN_BATCH);
    expect(attemptQueue(parked.queues, 1)).toEqual({ attempt: 1, head: DRAIN_BATCH, tail: DRAIN_BATCH + 3, headDueAt: 0 });
    const rest = await drainEndpoint(deps(), input({ queues: parked.queues }));
    expect(attemptQueue(rest.queues, 1)).toEqual({ attempt: 1, head: DRAIN_BATCH + 3, tail: DRAIN_BATCH + 3, headDueAt: null });
    expect(new Set(arrived().map((a) => a.headers['webhook-id'])).size).toBe(DRAIN_BATCH + 3);
    expect(await webhookQueue(db).countDocuments({ endpoint_id: endpoint._id })).toBe(0);
  });

  it('drops a new delivery the endpoint no longer takes, unrecorded, and cancels one under way', async () => {
    const { endpoint, refs, input, arrived } = await setUp('/narrowed', 2);
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/narrowed' ? 500 : previous(r, i));
    try {
      const first = await drainEndpoint(deps(), input({ fresh: [refs[0]!] }));
      await webhookEndpoints(db).updateOne({ _id: endpoint._id }, { $set: { event_types: ['payment.paid'] } });
      // Unsubscribed since its publisher read the endpoints: dropped, as a fan-out now would.
      const fresh = await drainEndpoint(deps(), input({ fresh: [refs[1]!], queues: first.queues }));
      expect(await webhookDeliveries(db).findOne({ _id: refs[1]!.deliveryId })).toBeNull();
      await webhookEndpoints(db).updateOne({ _id: endpoint._id }, { $set: { enabled: false } });
      clockMs += RETRY_DELAYS_MS[0]! + 1_000;
      const cancelled = await drainEndpoint(deps(), input({ queues: fresh.queues }));
      expect(cancelled.totals).toEqual({ attempts: 0, succeeded: 0, failed: 0, cancelled: 1 });
      expect(await webhookDeliveries(db).findOne({ _id: refs[0]!.deliveryId })).toMatchObject({ status: 'cancelled', cancel_reason: 'endpoint_disabled', attempt_count: 1 });
      expect(arrived()).toHaveLength(1);
    } finally {
      receiver.answer = previous;
    }
  });
});
