import { uniqueName } from '../../support/env';
import { createTimeSkippingEnv } from '../../support/timeSkipping';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Longer than the SDK's first retry delays (100 ms, then 170 ms, jittered), which is when an unended call would retry. */
const RETRY_WINDOW_MS = 2_000;

/**
 * A test that timed out leaves its calls waiting on the file's time-skipping environment. The
 * environment's teardown ends them: none may be retried once the channel is closed, because that
 * retry throws "Channel has been shut down" from a timer, an uncaught exception that jest charges
 * to the next file its worker runs (CI: dues.test.ts hung, then keysWebhooks.test.ts "failed to
 * run").
 */
describe('tearing down the time-skipping environment while a call waits on it', () => {
  it('ends the waiting call with CANCELLED, and nothing is retried against the closed channel', async () => {
    const env = await createTimeSkippingEnv();
    let torn = false;
    try {
      // No worker takes this workflow's first task, so the server skips no time and a day's sleep waits in real time.
      await env.client.workflow.start('strandedWorkflow', { taskQueue: uniqueName('nobody'), workflowId: uniqueName('stranded') });
      const sleeping = env.sleep(DAY_MS).then(
        () => 'slept',
        (err: unknown) => err,
      );
      const within = (ms: number) => Promise.race([sleeping, new Promise((resolve) => setTimeout(resolve, ms, 'still waiting'))]);
      expect(await within(500)).toBe('still waiting');

      torn = true;
      await env.teardown();
      expect(await within(10_000)).toMatchObject({ code: 1, details: 'the test environment was torn down' });
      // A call the timed-out test makes afterwards ends the same way, never reaching the closed channel.
      await expect(env.currentTimeMs()).rejects.toMatchObject({ code: 1, details: 'the test environment was torn down' });
      // An unended call would retry in this window and throw outside any promise; jest would fail this test with it.
      await new Promise((resolve) => setTimeout(resolve, RETRY_WINDOW_MS));
    } finally {
      if (!torn) await env.teardown();
    }
  });
});
