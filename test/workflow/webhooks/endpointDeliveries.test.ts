import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { Db } from 'mongodb';
import { appendEvent, type EventDoc } from '../../../src/events/eventStore';
import { signalWithStartWorkflow } from '../../../src/temporal/startWorkflow';
import { deliverSignal, deliveryWorkflowId, endpointDeliveriesDefinition, endpointWorkflowId, wakeSignal } from '../../../src/webhooks/contracts';
import { createDeliverySignaller } from '../../../src/webhooks/deliverySignals';
import { webhookInbox, webhookInboxState, webhookInboxStateId } from '../../../src/webhooks/inbox';
import { webhookDeliveries } from '../../../src/webhooks/deliveries';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { createWorker } from '../../../src/worker/createWorker';
import { insertWebhookEndpoint } from '../../support/documents';
import { openTestDb, testConfig, testServers, uniqueName } from '../../support/env';
import { createTimeSkippingEnv } from '../../support/timeSkipping';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * The endpoint workflow on the time-skipping server with the real drain: signals that arrive
 * while it continues as new are carried to the next run (none lost, none sent twice), it
 * takes what publishers park in its MongoDB inbox across runs, and it closes once idle with
 * nothing pending.
 */
describe('endpoint delivery workflow (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let store: Awaited<ReturnType<typeof openTestDb>>;
  let db: Db;
  let worker: Worker;
  let running: Promise<void>;
  let receiver: WebhookReceiver;
  const taskQueue = uniqueName('endpoint');

  beforeAll(async () => {
    store = await openTestDb(testConfig());
    db = store.db;
    receiver = await startWebhookReceiver();
    env = await createTimeSkippingEnv();
    const deps = buildActivityDeps({ db, temporal: env.client, taskQueue }, { webhooks: { allowPrivateUrls: true } });
    ({ worker } = await createWorker({
      config: { TEMPORAL_ADDRESS: 'unused:1', TEMPORAL_NAMESPACE: env.namespace ?? 'default', TEMPORAL_TASK_QUEUE: taskQueue },
      deps,
      connection: env.nativeConnection,
      workflowBundlePath: testServers.workflowBundle(),
    }));
    running = worker.run();
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await receiver?.close();
    await store?.drop();
  });

  it('carries deliveries signalled across continue-as-new to the next run and delivers each once', async () => {
    const tenantId = uniqueName('ws');
    const endpointId = uniqueName('whk');
    const now = new Date();
    await insertWebhookEndpoint(db, tenantId, receiver.url('/can'), { _id: endpointId });
    const count = 24;
    const events: EventDoc[] = [];
    for (let i = 0; i < count; i++) events.push(await appendEvent(db, { tenantId, type: 'call.ended', dedupeKey: `can:${i}`, data: { call_id: `call_${i}` }, createdAt: now }));
    // A history limit this low continues as new every few drains, while signals keep arriving.
    const ref = (i: number) => ({ deliveryId: deliveryWorkflowId(events[i]!._id, endpointId), eventId: events[i]!._id, trigger: 'event' as const });
    const { signaledRunId: first } = await signalWithStartWorkflow(env.client, endpointDeliveriesDefinition, {
      workflowId: endpointWorkflowId(endpointId),
      taskQueue,
      args: [{ endpointId, tenantId, historyLimit: 12 }],
      signal: deliverSignal,
      signalArgs: [[ref(0)]],
    });
    // The rest one signal each, some at once, while the workflow drains and continues as new.
    for (let i = 1; i < count; i += 3) {
      await Promise.all([i, i + 1, i + 2].filter((n) => n < count).map((n) => env.client.workflow.getHandle(endpointWorkflowId(endpointId)).signal(deliverSignal, [ref(n)])));
    }
    const totals = await env.client.workflow.getHandle(endpointWorkflowId(endpointId)).result();
    expect(totals).toEqual({ attempts: count, succeeded: count, failed: 0, cancelled: 0 });
    for (const event of events) {
      expect(receiver.forEvent(event._id)).toHaveLength(1);
      expect(await webhookDeliveries(db).findOne({ _id: deliveryWorkflowId(event._id, endpointId) })).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    }
    const described = await env.client.workflow.getHandle(endpointWorkflowId(endpointId)).describe();
    expect(described.runId).not.toBe(first);
  });

  it('takes deliveries from its MongoDB inbox across continue-as-new, each once', async () => {
    const tenantId = uniqueName('ws');
    const endpointId = uniqueName('whk');
    await insertWebhookEndpoint(db, tenantId, receiver.url('/inbox'), { _id: endpointId });
    const handle = env.client.workflow.getHandle(endpointWorkflowId(endpointId));
    // Started with a history limit this low, the run hands over every few drains.
    const { signaledRunId: first } = await signalWithStartWorkflow(env.client, endpointDeliveriesDefinition, {
      workflowId: endpointWorkflowId(endpointId),
      taskQueue,
      args: [{ endpointId, tenantId, historyLimit: 12 }],
      signal: wakeSignal,
      signalArgs: [],
    });
    const signaller = createDeliverySignaller(db, env.client, taskQueue);
    const count = 30;
    const events: EventDoc[] = [];
    for (let i = 0; i < count; i++) {
      events.push(await appendEvent(db, { tenantId, type: 'call.ended', dedupeKey: `inbox:${i}`, data: { call_id: `call_${i}` }, createdAt: new Date() }));
      // Three at a time, as concurrent producers would.
      if (i % 3 === 2) {
        await Promise.all(events.slice(-3).map((e) => signaller.deliver(tenantId, endpointId, { deliveryId: deliveryWorkflowId(e._id, endpointId), eventId: e._id, trigger: 'event' })));
      }
    }
    const totals = await handle.result();
    expect(totals).toEqual({ attempts: count, succeeded: count, failed: 0, cancelled: 0 });
    for (const event of events) expect(receiver.forEvent(event._id)).toHaveLength(1);
    expect((await handle.describe()).runId).not.toBe(first);
    // Entries go once the drains that took them are in the history (later runs delete them).
    const state = await webhookInboxState(db).findOne({ _id: webhookInboxStateId(endpointId) });
    expect(state).toMatchObject({ head: count, idle: true });
    expect(state!.deleted).toBeGreaterThan(0);
    expect(await webhookInbox(db).countDocuments({ endpoint_id: endpointId })).toBe(count - state!.deleted);
  });
});
