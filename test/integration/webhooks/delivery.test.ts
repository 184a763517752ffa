import request from 'supertest';
import { createTemporalDispatcher } from '../../../src/webhooks/dispatcher';
import { appendEvent, eventsCollection, undispatchedEvents } from '../../../src/events/eventStore';
import { createEventPublisher, type EventPublisher } from '../../../src/events/publisher';
import { createEventSweeper } from '../../../src/events/sweeper';
import { webhookDeliveries, type WebhookDeliveryDoc } from '../../../src/webhooks/deliveries';
import { verify } from '../../../src/webhooks/verify';
import { WorkflowNotFoundError } from '@temporalio/client';
import { deliveryTotalsQuery, deliveryWorkflowId, endpointWorkflowId } from '../../../src/webhooks/contracts';
import { createEndpointDirectory } from '../../../src/webhooks/endpointDirectory';
import { startTestApi, type TestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';
import type { Db } from 'mongodb';

async function deliveryReaches(db: Db, id: string, status: WebhookDeliveryDoc['status'], timeoutMs = 30_000): Promise<WebhookDeliveryDoc> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const doc = await webhookDeliveries(db).findOne({ _id: id });
    if (doc?.status === status) return doc;
    if (Date.now() > until) throw new Error(`delivery ${id} is ${doc?.status ?? 'absent'}, not ${status}, after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('webhook delivery end to end (real worker, dev server, FerretDB)', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  let events: EventPublisher;
  let admin: { Authorization: string };

  beforeAll(async () => {
    api = await startTestApi({ worker: true });
    receiver = await startWebhookReceiver();
    events = createEventPublisher(api.db, createTemporalDispatcher(api.db, api.temporal, api.config.TEMPORAL_TASK_QUEUE));
    admin = bearer(api.config.CONSOLE_TOKEN!);
  });

  afterAll(async () => {
    await receiver?.close();
    await api?.close();
  });

  const consoleCall = (method: 'get' | 'post', path: string, body?: unknown) => {
    const req = request(api.server)[method](`/console/v1${path}`).set(admin);
    return body === undefined ? req : req.send(body as object);
  };

  async function endpoint(ws: string, body: Record<string, unknown>): Promise<{ webhook_id: string; secret: string }> {
    const res = await consoleCall('post', `/workspaces/${ws}/webhooks`, body);
    expect(res.status).toBe(201);
    return res.body;
  }

  it('delivers each event to the enabled endpoints that receive its type; none ticked means every type', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const all = await endpoint(ws, { url: receiver.url('/all') });
    const tickets = await endpoint(ws, { url: receiver.url('/tickets'), event_types: ['ticket.created', 'ticket.updated'] });
    const payments = await endpoint(ws, { url: receiver.url('/payments'), event_types: ['payment.paid'] });
    const off = await endpoint(ws, { url: receiver.url('/off'), enabled: false });

    const ticket = await events.publish({ tenantId: ws, type: 'ticket.created', dedupeKey: `ticket.created:${ws}`, data: { ticket_id: 'tkt_1', public_ref: 'T-1', assignee: null }, createdAt: new Date('2025-03-04T05:06:07.890Z') });
    const paid = await events.publish({ tenantId: ws, type: 'payment.paid', dedupeKey: `payment.paid:${ws}`, data: { due_id: 'due_1', amount: 1500 }, createdAt: new Date() });

    // The endpoints an event is handed to (each through its endpoint's delivery workflow).
    const fanOut = (type: string) => createEndpointDirectory(api.db).receivers(ws, type);
    expect(await fanOut(ticket.type)).toEqual([all.webhook_id, tickets.webhook_id]);
    expect(await fanOut(paid.type)).toEqual([all.webhook_id, payments.webhook_id]);

    for (const [event, hook] of [
      [ticket, all],
      [ticket, tickets],
      [paid, all],
      [paid, payments],
    ] as const) {
      const delivery = await deliveryReaches(api.db, deliveryWorkflowId(event._id, hook.webhook_id), 'succeeded');
      expect(delivery).toMatchObject({ attempt_count: 1, last_status_code: 200, trigger: 'event', event_type: event.type });
    }
    const arrived = receiver.forEvent(ticket._id);
    expect(arrived.map((r) => r.path).sort()).toEqual(['/all', '/tickets']);
    // The exact stored bytes, signed with each endpoint's own secret.
    for (const r of arrived) {
      expect(r.body.toString('utf8')).toBe(ticket.payload);
      const secret = r.path === '/all' ? all.secret : tickets.secret;
      expect(verify(r.body, r.headers, secret)).toEqual({
        id: ticket._id,
        type: 'ticket.created',
        created_at: '2025-03-04T05:06:07Z',
        tenant_id: ws,
        data: { ticket_id: 'tkt_1', public_ref: 'T-1' },
      });
      expect(r.headers['content-type']).toBe('application/json');
    }
    expect(receiver.forEvent(paid._id).map((r) => r.path).sort()).toEqual(['/all', '/payments']);
    // Received events went the marker path: marked dispatched and their markers dropped.
    for (const event of [ticket, paid]) {
      expect(event.dispatched_at).toBeNull();
      expect((await eventsCollection(api.db).findOne({ _id: event._id }))!.dispatched_at).toBeInstanceOf(Date);
      expect(await undispatchedEvents(api.db).findOne({ _id: event._id })).toBeNull();
    }
    expect(receiver.received.filter((r) => r.path === '/off')).toEqual([]);
    // No workflow at all for an endpoint that receives nothing.
    await expect(api.temporal.workflow.getHandle(endpointWorkflowId(off.webhook_id)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('starts no workflow for an event no endpoint receives', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const hook = await endpoint(ws, { url: receiver.url('/only-payments'), event_types: ['payment.paid'] });
    const event = await events.publish({ tenantId: ws, type: 'ticket.created', dedupeKey: `ticket.created:nobody:${ws}`, data: { ticket_id: 'tkt_2' }, createdAt: new Date() });
    expect((await eventsCollection(api.db).findOne({ _id: event._id }))!.dispatched_at).toBeInstanceOf(Date);
    // Stored already dispatched, in one write: no marker for the sweeper.
    expect(event.dispatched_at).toBeInstanceOf(Date);
    expect(await undispatchedEvents(api.db).findOne({ _id: event._id })).toBeNull();
    await expect(api.temporal.workflow.getHandle(endpointWorkflowId(hook.webhook_id)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await expect(api.temporal.workflow.getHandle(event._id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('retries a failed attempt on the schedule and records every attempt, visible in the console', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const hook = await endpoint(ws, { url: receiver.url('/flaky'), event_types: ['message.status'] });
    let flakyCalls = 0;
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/flaky' ? (flakyCalls++ === 0 ? 503 : 200) : previous(r, i));
    try {
      const event = await events.publish({ tenantId: ws, type: 'message.status', dedupeKey: `msg_1:delivered:${ws}`, data: { message_id: 'wamid.1', status: 'delivered' }, createdAt: new Date() });
      const id = deliveryWorkflowId(event._id, hook.webhook_id);
      const pending = await deliveryReaches(api.db, id, 'pending');
      expect(pending.attempts![0]).toMatchObject({ attempt: 1, status_code: 503, error: 'answered 503', response_body: 'status 503' });
      expect(pending.next_attempt_at!.getTime() - pending.attempts![0]!.attempted_at.getTime()).toBeGreaterThanOrEqual(5_000);

      await deliveryReaches(api.db, id, 'succeeded');
      const [first, second] = receiver.forEvent(event._id);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(4_900);
      expect(second!.body.equals(first!.body)).toBe(true);
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);

      const shown = await consoleCall('get', `/workspaces/${ws}/webhooks/${hook.webhook_id}/deliveries/${encodeURIComponent(id)}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({
        delivery_id: id,
        webhook_id: hook.webhook_id,
        event_id: event._id,
        event_type: 'message.status',
        trigger: 'event',
        status: 'succeeded',
        attempt_count: 2,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
        completed_at: expect.any(String),
      });
      expect(shown.body.attempts).toEqual([
        { attempt: 1, attempted_at: expect.any(String), url: receiver.url('/flaky'), status_code: 503, duration_ms: expect.any(Number), error: 'answered 503', response_body: 'status 503' },
        { attempt: 2, attempted_at: expect.any(String), url: receiver.url('/flaky'), status_code: 200, duration_ms: expect.any(Number), error: null, response_body: 'ok' },
      ]);
      const listed = await consoleCall('get', `/workspaces/${ws}/webhooks/${hook.webhook_id}/deliveries`);
      expect(listed.status).toBe(200);
      expect(listed.body.items).toEqual([expect.objectContaining({ delivery_id: id, status: 'succeeded', attempt_count: 2 })]);
      expect(listed.body.items[0].attempts).toBeUndefined();
    } finally {
      receiver.answer = previous;
    }
  }, 90_000);

  it('sends a ping from the test action and replays an event with the same bytes and id', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const hook = await endpoint(ws, { url: receiver.url('/replay'), event_types: ['ticket.updated'] });
    // Listed once before any delivery: every one listed below is listed by the entry its drain wrote (src/webhooks/deliveryEntries.ts).
    expect((await consoleCall('get', `/workspaces/${ws}/webhooks/${hook.webhook_id}/deliveries`)).body).toEqual({ items: [], next_cursor: null });

    const test = await consoleCall('post', `/workspaces/${ws}/webhooks/${hook.webhook_id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ trigger: 'test', event_type: 'ping', status: 'pending', attempts: [], attempt_count: 0 });
    await deliveryReaches(api.db, test.body.delivery_id, 'succeeded');
    const [ping] = receiver.forEvent(test.body.event_id);
    expect(verify(ping!.body, ping!.headers, hook.secret)).toMatchObject({ id: test.body.event_id, type: 'ping', tenant_id: ws, data: { webhook_id: hook.webhook_id } });

    const event = await events.publish({ tenantId: ws, type: 'ticket.updated', dedupeKey: `ticket.updated:1:${ws}`, data: { ticket_id: 'tkt_9', status: 'open' }, createdAt: new Date() });
    await deliveryReaches(api.db, deliveryWorkflowId(event._id, hook.webhook_id), 'succeeded');

    const replay = await consoleCall('post', `/workspaces/${ws}/webhooks/${hook.webhook_id}/replay`, { event_id: event._id });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ event_id: event._id, trigger: 'replay', status: 'pending', delivery_id: expect.stringMatching(new RegExp(`^${event._id}:${hook.webhook_id}:rpl_[0-9a-f]{24}$`)) });
    await deliveryReaches(api.db, replay.body.delivery_id, 'succeeded');
    const [original, replayed] = receiver.forEvent(event._id);
    expect(replayed!.body.equals(original!.body)).toBe(true);
    expect(verify(replayed!.body, replayed!.headers, hook.secret).id).toBe(event._id);

    const listed = await consoleCall('get', `/workspaces/${ws}/webhooks/${hook.webhook_id}/deliveries?event_id=${event._id}`);
    expect(listed.body.items.map((d: { trigger: string }) => d.trigger)).toEqual(['replay', 'event']);
    const page1 = await consoleCall('get', `/workspaces/${ws}/webhooks/${hook.webhook_id}/deliveries?limit=2`);
    expect(page1.body.items).toHaveLength(2);
    const page2 = await consoleCall('get', `/workspaces/${ws}/webhooks/${hook.webhook_id}/deliveries?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    expect(page2.body.items.map((d: { trigger: string }) => d.trigger)).toEqual(['test']);
    expect(page2.body.next_cursor).toBeNull();
    // The entries follow the deliveries' status: the status filter finds all three succeeded.
    const succeeded = await consoleCall('get', `/workspaces/${ws}/webhooks/${hook.webhook_id}/deliveries?status=succeeded`);
    expect(succeeded.body.items.map((d: { trigger: string }) => d.trigger)).toEqual(['replay', 'event', 'test']);
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const hook = await endpoint(ws, { url: receiver.url('/rotated') });
    const rotated = (await consoleCall('post', `/workspaces/${ws}/webhooks/${hook.webhook_id}/rotate-secret`)).body;
    const test = (await consoleCall('post', `/workspaces/${ws}/webhooks/${hook.webhook_id}/test`)).body;
    await deliveryReaches(api.db, test.delivery_id, 'succeeded');
    const [ping] = receiver.forEvent(test.event_id);
    expect(String(ping!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(ping!.body, ping!.headers, hook.secret).id).toBe(test.event_id);
    expect(verify(ping!.body, ping!.headers, rotated.secret).id).toBe(test.event_id);
  });

  it('dispatches an event whose producer died before dispatching (the sweeper), once', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const hook = await endpoint(ws, { url: receiver.url('/swept') });
    // Stored, never dispatched: what a producer leaves when it dies between the two steps.
    const event = await appendEvent(api.db, { tenantId: ws, type: 'conversation.started', dedupeKey: `con_1:${ws}`, data: { conversation_id: 'con_1' }, createdAt: new Date(Date.now() - 120_000) });
    const sweeper = createEventSweeper({ db: api.db, dispatcher: createTemporalDispatcher(api.db, api.temporal, api.config.TEMPORAL_TASK_QUEUE) });
    expect(await sweeper.sweepOnce()).toBeGreaterThanOrEqual(1);
    expect((await eventsCollection(api.db).findOne({ _id: event._id }))!.dispatched_at).toBeInstanceOf(Date);
    await deliveryReaches(api.db, deliveryWorkflowId(event._id, hook.webhook_id), 'succeeded');
    expect(await sweeper.sweepOnce()).toBe(0);

    // A producer retrying after its dispatch started does not fan out (or deliver) again.
    await eventsCollection(api.db).updateOne({ _id: event._id }, { $set: { dispatched_at: null } });
    await undispatchedEvents(api.db).insertOne({ _id: event._id, created_at: event.created_at });
    expect(await sweeper.sweepOnce()).toBe(1);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.forEvent(event._id)).toHaveLength(1);
  });

  it('leaves a young undispatched event to its producer', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const event = await appendEvent(api.db, { tenantId: ws, type: 'conversation.started', dedupeKey: `con_2:${ws}`, data: {}, createdAt: new Date() });
    const sweeper = createEventSweeper({ db: api.db, dispatcher: { dispatch: async (e) => {
      expect(e._id).not.toBe(event._id);
    } } });
    await sweeper.sweepOnce();
    expect((await eventsCollection(api.db).findOne({ _id: event._id }))!.dispatched_at).toBeNull();
  });

  it('cancels pending deliveries of an endpoint deleted while they wait', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const hook = await endpoint(ws, { url: receiver.url('/gone') });
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/gone' ? 500 : previous(r, i));
    try {
      const event = await events.publish({ tenantId: ws, type: 'call.started', dedupeKey: `call.started:${ws}`, data: { call_id: 'call_1' }, createdAt: new Date() });
      const id = deliveryWorkflowId(event._id, hook.webhook_id);
      await deliveryReaches(api.db, id, 'pending');
      expect((await request(api.server).delete(`/console/v1/workspaces/${ws}/webhooks/${hook.webhook_id}`).set(admin)).status).toBe(200);
      const cancelled = await deliveryReaches(api.db, id, 'cancelled');
      expect(cancelled).toMatchObject({ cancel_reason: 'endpoint_deleted', attempt_count: 1, next_attempt_at: null });
      // The endpoint's workflow counted one attempt, and the delivery cancelled at the next.
      expect(await api.temporal.workflow.getHandle(endpointWorkflowId(hook.webhook_id)).query(deliveryTotalsQuery)).toEqual({ attempts: 1, succeeded: 0, failed: 0, cancelled: 1 });
    } finally {
      receiver.answer = previous;
    }
  }, 90_000);
});

describe('webhook delivery with private addresses refused (production rule)', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    api = await startTestApi({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await api?.close();
  });

  it('refuses at delivery time a host that now resolves to loopback (DNS rebinding), sending nothing', async () => {
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    // Saved while its name resolved publicly; by delivery time it resolves to 127.0.0.1.
    const now = new Date();
    await api.db.collection('webhook_endpoints').insertOne({
      _id: 'whk_rebound' as never,
      tenant_id: ws,
      url: receiver.url('/rebound').replace('127.0.0.1', 'localhost'),
      event_types: [],
      enabled: true,
      description: null,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    });
    const events = createEventPublisher(api.db, createTemporalDispatcher(api.db, api.temporal, api.config.TEMPORAL_TASK_QUEUE));
    const event = await events.publish({ tenantId: ws, type: 'ticket.created', dedupeKey: `t:${ws}`, data: { ticket_id: 'tkt_1' }, createdAt: now });
    const pending = await deliveryReaches(api.db, deliveryWorkflowId(event._id, 'whk_rebound'), 'pending');
    expect(pending.attempts![0]).toMatchObject({
      attempt: 1,
      status_code: null,
      error: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1) \(loopback\); private, loopback and link-local addresses are refused$/),
    });
    expect(receiver.received).toEqual([]);
  });
});
