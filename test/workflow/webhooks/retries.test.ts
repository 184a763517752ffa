import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { Db } from 'mongodb';
import { createTemporalDispatcher } from '../../../src/webhooks/dispatcher';
import { createEventPublisher, type EventPublisher } from '../../../src/events/publisher';
import { webhookDeliveries } from '../../../src/webhooks/deliveries';
import type { WebhookEndpointDoc } from '../../../src/webhooks/endpoints';
import { verify } from '../../../src/webhooks/verify';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { createWorker } from '../../../src/worker/createWorker';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS, deliveryWorkflowId, endpointWorkflowId, type EndpointDeliveries, type EndpointDeliveryTotals } from '../../../src/webhooks/contracts';
import { insertWebhookEndpoint } from '../../support/documents';
import { openTestDb, testConfig, testServers, uniqueName } from '../../support/env';
import { createTimeSkippingEnv } from '../../support/timeSkipping';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

const HOUR = 3600_000;

/**
 * The retry schedule on durable timers, on the time-skipping server: days of retries run in
 * seconds, with real activities (HTTP to a local receiver, records in FerretDB).
 */
it('the retry schedule lasts at least 24 hours', () => {
  expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * HOUR);
  expect(MAX_DELIVERY_ATTEMPTS).toBe(12);
});

describe('webhook retries over a day (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let store: Awaited<ReturnType<typeof openTestDb>>;
  let db: Db;
  let worker: Worker;
  let running: Promise<void>;
  let receiver: WebhookReceiver;
  let events: EventPublisher;
  const taskQueue = uniqueName('webhooks');

  beforeAll(async () => {
    store = await openTestDb(testConfig());
    db = store.db;
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await store?.drop();
  });

  // An environment per test: after one test's waits, the Java test server stopped skipping
  // time in the next (its time lock stayed held), so each test starts from a fresh server.
  beforeEach(async () => {
    env = await createTimeSkippingEnv();
    const deps = buildActivityDeps({ db, temporal: env.client, taskQueue }, { webhooks: { allowPrivateUrls: true } });
    ({ worker } = await createWorker({
      config: { TEMPORAL_ADDRESS: 'unused:1', TEMPORAL_NAMESPACE: env.namespace ?? 'default', TEMPORAL_TASK_QUEUE: taskQueue },
      deps,
      connection: env.nativeConnection,
      workflowBundlePath: testServers.workflowBundle(),
    }));
    running = worker.run();
    events = createEventPublisher(db, createTemporalDispatcher(db, env.client, taskQueue));
  });

  afterEach(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  /** The endpoint workflow's result: it closes when idle with nothing pending (time skips there). */
  function endpointResult(endpoint: WebhookEndpointDoc): Promise<EndpointDeliveryTotals> {
    return env.client.workflow.getHandle<EndpointDeliveries>(endpointWorkflowId(endpoint._id)).result();
  }

  const addEndpoint = (tenantId: string, path: string): Promise<WebhookEndpointDoc> => insertWebhookEndpoint(db, tenantId, receiver.url(path));

  it('fails a delivery after twelve attempts over more than 24 hours, with every attempt recorded', async () => {
    const tenantId = uniqueName('ws');
    const endpoint = await addEndpoint(tenantId, '/never');
    receiver.answer = (r) => (r.path === '/never' ? 500 : 200);
    const event = await events.publish({ tenantId, type: 'call.ended', dedupeKey: 'call.ended:1', data: { call_id: 'call_1' }, createdAt: new Date() });
    const startedAt = await env.currentTimeMs();
    const id = deliveryWorkflowId(event._id, endpoint._id);
    // The endpoint's workflow closes once idle with nothing pending: its totals are its deliveries' ends.
    expect(await endpointResult(endpoint)).toEqual({ attempts: 12, succeeded: 0, failed: 1, cancelled: 0 });
    expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(24 * HOUR);

    const delivery = await webhookDeliveries(db).findOne({ _id: id });
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 12, last_status_code: 500, next_attempt_at: null, completed_at: expect.any(Date) });
    expect(delivery!.attempts!.map((a) => [a.attempt, a.status_code, a.error])).toEqual(Array.from({ length: 12 }, (_, i) => [i + 1, 500, 'answered 500']));
    expect(receiver.received.filter((r) => r.path === '/never')).toHaveLength(12);
  });

  it('delivers everything to a receiver that fails for hours and then recovers', async () => {
    const tenantId = uniqueName('ws');
    const endpoints = [await addEndpoint(tenantId, '/down-a'), await addEndpoint(tenantId, '/down-b')];
    // Down for the first six attempts of each delivery (about 43 minutes of schedule), then up.
    const failFirst = 6;
    const seen = new Map<string, number>();
    receiver.answer = (r) => {
      const key = `${r.path} ${String(r.headers['webhook-id'])}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      return seen.get(key)! <= failFirst ? 503 : 200;
    };
    const published = [];
    for (let i = 0; i < 3; i++) {
      published.push(await events.publish({ tenantId, type: 'payment.paid', dedupeKey: `paid:${i}`, data: { due_id: `due_${i}`, amount: 100 + i }, createdAt: new Date() }));
    }
    const startedAt = await env.currentTimeMs();
    // One result at a time: the Java test server has hung on several concurrent time-skipping waits.
    const results: EndpointDeliveryTotals[] = [];
    for (const e of endpoints) results.push(await endpointResult(e));
    // Each endpoint: three deliveries, each succeeding at its seventh attempt.
    expect(results).toEqual(Array(2).fill({ attempts: 3 * (failFirst + 1), succeeded: 3, failed: 0, cancelled: 0 }));
    // Six failed attempts wait 5 s + 30 s + 2 min + 10 min + 30 min + 1 h of workflow time.
    expect((await env.currentTimeMs()) - startedAt).toBeGreaterThanOrEqual(RETRY_DELAYS_MS.slice(0, failFirst).reduce((a, b) => a + b, 0));

    for (const event of published) {
      for (const endpoint of endpoints) {
        const arrivals = receiver.received.filter((r) => r.headers['webhook-id'] === event._id && r.path === new URL(endpoint.url).pathname);
        expect(arrivals).toHaveLength(failFirst + 1);
        // Every attempt carried the same stored bytes; the one that landed verifies.
        for (const a of arrivals) expect(a.body.toString('utf8')).toBe(event.payload);
        expect(verify(arrivals.at(-1)!.body, arrivals.at(-1)!.headers, endpoint.secret).id).toBe(event._id);

        const delivery = await webhookDeliveries(db).findOne({ _id: deliveryWorkflowId(event._id, endpoint._id) });
        expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: failFirst + 1, last_status_code: 200, next_attempt_at: null });
        expect(delivery!.attempts!.map((a) => a.status_code)).toEqual([...Array(failFirst).fill(503), 200]);
        expect(delivery!.attempts!.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      }
    }
  });

});
