import request from 'supertest';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { webhookPrivateUrlsAllowed } from '../../../src/config';
import { createTemporalDispatcher } from '../../../src/webhooks/dispatcher';
import { createEventPublisher } from '../../../src/events/publisher';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { waitFor } from '../../../src/local/net';
import { webhookDeliveries, type WebhookDeliveryDoc } from '../../../src/webhooks/deliveries';
import { verify } from '../../../src/webhooks/verify';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { createWorker } from '../../../src/worker/createWorker';
import { deliveryWorkflowId } from '../../../src/webhooks/contracts';
import { startTestApi, type TestApi } from '../../support/app';
import { testServers } from '../../support/env';
import { bearer } from '../../support/http';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';
import { startWorkerProcess } from '../../support/worker';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * At least once across a crash: the worker process (the real entry point, src/main/worker.ts)
 * is killed with SIGKILL while its HTTP attempt hangs on the receiver; a new worker takes
 * over and the receiver gets the event.
 */
describe('a worker killed mid-delivery', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  let child: ManagedProcess | null = null;
  let replacement: { worker: Worker; connection: NativeConnection; done: Promise<void> } | null = null;

  beforeAll(async () => {
    api = await startTestApi();
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await child?.stop(1_000);
    if (replacement) {
      replacement.worker.shutdown();
      await replacement.done;
      await replacement.connection.close();
    }
    await receiver?.close();
    await api?.close();
  });

  it('loses nothing: the next worker delivers the event', async () => {
    child = await startWorkerProcess(api.config, { logName: 'killed-worker' });

    // The first request hangs (the receiver never answers); every later one succeeds.
    receiver.answer = (_r, index) => (index === 0 ? 'hang' : 200);
    const ws = (await createTestWorkspace(api.db)).workspaceId;
    const hook = (await request(api.server).post(`/console/v1/workspaces/${ws}/webhooks`).set(bearer(api.config.CONSOLE_TOKEN!)).send({ url: receiver.url('/crash') })).body;
    const events = createEventPublisher(api.db, createTemporalDispatcher(api.db, api.temporal, api.config.TEMPORAL_TASK_QUEUE));
    const event = await events.publish({ tenantId: ws, type: 'call.ended', dedupeKey: `call.ended:${ws}`, data: { call_id: 'call_crash' }, createdAt: new Date() });

    await receiver.waitFor((r) => r.headers['webhook-id'] === event._id, 1, 30_000);
    const killedAt = Date.now();
    child.child.kill('SIGKILL');
    await child.exited;

    const deps = buildActivityDeps(
      { db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE },
      { webhooks: { allowPrivateUrls: webhookPrivateUrlsAllowed(api.config) } },
    );
    const { worker, connection } = await createWorker({ config: api.config, deps, workflowBundlePath: testServers.workflowBundle() });
    replacement = { worker, connection, done: worker.run() };

    const [first, second] = await receiver.waitFor((r) => r.headers['webhook-id'] === event._id, 2, 60_000);
    process.stdout.write(`[worker kill] redelivered ${Math.round((second!.at - killedAt) / 100) / 10} s after the kill\n`);
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(verify(second!.body, second!.headers, hook.secret)).toMatchObject({ id: event._id, type: 'call.ended', data: { call_id: 'call_crash' } });

    const id = deliveryWorkflowId(event._id, hook.webhook_id);
    let delivery: WebhookDeliveryDoc | null = null;
    await waitFor('delivery recorded', async () => (delivery = await webhookDeliveries(api.db).findOne({ _id: id, status: 'succeeded' })), 30_000, 100);
    // The interrupted attempt never finished, so the next worker ran attempt 1 again (its
    // workflow task timed out with the dead worker) and recorded that answer.
    expect(delivery!.attempts!.map((a) => [a.attempt, a.status_code, a.error])).toEqual([[1, 200, null]]);
  }, 180_000);
});
