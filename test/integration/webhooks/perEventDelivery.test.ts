import type { Db } from 'mongodb';
import { appendEvent } from '../../../src/events/eventStore';
import { deliveryWorkflowId, type AttemptInput } from '../../../src/webhooks/contracts';
import { webhookDeliveries } from '../../../src/webhooks/deliveries';
import { webhookEndpoints } from '../../../src/webhooks/endpoints';
import { perEventDelivery } from '../../../src/webhooks/perEventDelivery';
import { newWebhookEndpointDoc } from '../../support/documents';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * The steps of delivery as it ran before issue 13 (src/webhooks/perEventDelivery.ts), still
 * run by workflows started then: against FerretDB and a local receiver, without Temporal.
 */
describe('per-event delivery (runs started before issue 13)', () => {
  let store: Awaited<ReturnType<typeof openTestDb>>;
  let db: Db;
  let receiver: WebhookReceiver;
  const steps = () => perEventDelivery({ db, allowPrivate: true, now: () => new Date() });

  beforeAll(async () => {
    store = await openTestDb(testConfig());
    db = store.db;
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await store?.drop();
  });

  async function setUp(path: string) {
    const tenantId = uniqueName('ws');
    // Created a second apart: the listing is oldest first.
    const all = newWebhookEndpointDoc(tenantId, receiver.url(path), { created_at: new Date(Date.now() - 2_000) });
    const ticketsOnly = newWebhookEndpointDoc(tenantId, receiver.url(path), { event_types: ['ticket.created'], created_at: new Date(Date.now() - 1_000) });
    const callsOnly = newWebhookEndpointDoc(tenantId, receiver.url(path), { event_types: ['call.outcome'] });
    const disabled = newWebhookEndpointDoc(tenantId, receiver.url(path), { enabled: false });
    await webhookEndpoints(db).insertMany([all, ticketsOnly, callsOnly, disabled]);
    const event = await appendEvent(db, { tenantId, type: 'ticket.created', dedupeKey: 't:1', data: { ticket_id: 'tkt_1' }, createdAt: new Date() });
    const attempt = (endpointId: string, over: Partial<AttemptInput> = {}): AttemptInput => ({
      deliveryId: deliveryWorkflowId(event._id, endpointId),
      tenantId,
      eventId: event._id,
      endpointId,
      trigger: 'event',
      attempt: 1,
      retryDelayMs: 5_000,
      ...over,
    });
    return { tenantId, event, all, ticketsOnly, callsOnly, disabled, attempt, arrived: () => receiver.received.filter((r) => r.path === path) };
  }

  it('lists the enabled endpoints that receive the event, oldest first', async () => {
    const { tenantId, event, all, ticketsOnly } = await setUp('/targets');
    expect(await steps().listTargets({ tenantId, eventId: event._id })).toEqual({ endpointIds: [all._id, ticketsOnly._id] });
    expect(await steps().listTargets({ tenantId: uniqueName('ws'), eventId: event._id })).toEqual({ endpointIds: [] });
  });

  it('sends an attempt once: run again for the same attempt number, it answers what was recorded', async () => {
    const { all, attempt, arrived } = await setUp('/once');
    expect(await steps().attempt(attempt(all._id))).toEqual({ status: 'succeeded', statusCode: 200, error: null });
    expect(await steps().attempt(attempt(all._id))).toEqual({ status: 'succeeded', statusCode: 200, error: null });
    expect(arrived()).toHaveLength(1);
    // A lost-attempt report for an attempt that did record keeps its outcome.
    expect(await steps().recordLostAttempt({ ...attempt(all._id), error: 'activity timed out' })).toEqual({ status: 'succeeded', statusCode: 200, error: null });
    expect(await webhookDeliveries(db).findOne({ _id: attempt(all._id).deliveryId })).toMatchObject({ status: 'succeeded', attempt_count: 1 });
  });

  it('cancels an attempt to a disabled endpoint without sending', async () => {
    const { disabled, attempt, arrived } = await setUp('/disabled');
    expect(await steps().attempt(attempt(disabled._id))).toEqual({ status: 'cancelled', statusCode: null, error: 'endpoint_disabled' });
    expect(arrived()).toHaveLength(0);
  });

  it('records a lost attempt as pending before the last attempt and as failed on it', async () => {
    const { all, attempt } = await setUp('/lost');
    expect(await steps().recordLostAttempt({ ...attempt(all._id), error: 'worker lost' })).toEqual({ status: 'pending', statusCode: null, error: 'worker lost' });
    expect(await steps().recordLostAttempt({ ...attempt(all._id, { attempt: 2, retryDelayMs: null }), error: 'worker lost' })).toEqual({ status: 'failed', statusCode: null, error: 'worker lost' });
    expect(await webhookDeliveries(db).findOne({ _id: attempt(all._id).deliveryId })).toMatchObject({ status: 'failed', attempt_count: 2, last_error: 'worker lost' });
  });
});
