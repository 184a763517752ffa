import request from 'supertest';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { eventually } from '../../support/messaging';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * An endpoint's success rate in the console (issue 35, item 8): of the attempts sent to it in
 * the last 24 hours, how many were answered 2xx, counted by its drain (src/webhooks/attemptTallies.ts)
 * and shown on every endpoint answer. A pending delivery says when it is tried next.
 */
/** Attempts are sent and counted by the endpoint's workflow on the worker: a deadline for a loaded machine, past `eventually`'s 20 s. */
const DRAIN_DEADLINE_MS = 45_000;

describe('a webhook endpoint’s success rate (real worker, dev server, FerretDB)', () => {
  const { api, ws } = useTestApi({ worker: true });
  let receiver: WebhookReceiver;
  // The failed ping's retry is answered only once the three attempts before it were checked: it
  // comes 5 s after the failure, and on a loaded machine the console reads took longer than that.
  let answerRetry!: () => void;
  const retryAnswered = new Promise<number>((resolve) => (answerRetry = () => resolve(200)));
  beforeAll(async () => {
    // The third request fails once (its retry is the fourth); every other answer is 200.
    receiver = await startWebhookReceiver((_, index) => (index === 2 ? 500 : index === 3 ? retryAnswered : 200));
  });
  afterAll(() => receiver?.close());

  const consoleCall = (method: 'get' | 'post' | 'patch', path: string, body?: unknown) => {
    const req = request(api.server)[method](`/console/v1/workspaces/${ws.workspaceId}${path}`).set(bearer(api.config.CONSOLE_TOKEN!));
    return body === undefined ? req : req.send(body as object);
  };

  it('counts each attempt and each 2xx, and says when a pending delivery is tried next', async () => {
    const created = await consoleCall('post', '/webhooks', { url: receiver.url('/rate') });
    expect(created.status).toBe(201);
    expect(created.body.success_rate).toEqual({ hours: 24, attempts: 0, succeeded: 0, percent: null });
    const id: string = created.body.webhook_id;

    for (let i = 1; i <= 3; i++) {
      expect((await consoleCall('post', `/webhooks/${id}/test`)).status).toBe(202);
      await receiver.waitFor(() => true, i);
    }
    // The failed ping waits for its second attempt, due 5 s after the first.
    const pending = await eventually(async () => {
      const items = (await consoleCall('get', `/webhooks/${id}/deliveries?status=pending`)).body.items as { attempt_count: number; next_attempt_at: string | null }[];
      return items.find((d) => d.attempt_count === 1);
    }, 'the failed ping to be pending', DRAIN_DEADLINE_MS);
    expect(pending.next_attempt_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
    const failedAt = receiver.received[2]!.at;
    expect(Date.parse(pending.next_attempt_at!) - failedAt).toBeGreaterThanOrEqual(4_000);

    try {
      await eventually(async () => (await consoleCall('get', `/webhooks/${id}`)).body.success_rate.attempts === 3, 'three attempts counted', DRAIN_DEADLINE_MS);
      expect((await consoleCall('get', `/webhooks/${id}`)).body.success_rate).toEqual({ hours: 24, attempts: 3, succeeded: 2, percent: 66.7 });
    } finally {
      answerRetry();
    }

    // The retry succeeds: four attempts, three answered 2xx; the list says the same.
    await receiver.waitFor(() => true, 4);
    await eventually(async () => (await consoleCall('get', `/webhooks/${id}`)).body.success_rate.attempts === 4, 'the retry counted', DRAIN_DEADLINE_MS);
    const listed = (await consoleCall('get', '/webhooks')).body.items as { webhook_id: string; success_rate: unknown }[];
    expect(listed.find((e) => e.webhook_id === id)!.success_rate).toEqual({ hours: 24, attempts: 4, succeeded: 3, percent: 75 });
  }, 180_000);
});
