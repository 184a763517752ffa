import { useTimeSkippingEnv } from '../../support/timeSkipping';
import { uniqueName } from '../../support/env';
import { sleepFor } from './fixtures/timers';

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;

describe('the time-skipping test server', () => {
  const { env, startWorker } = useTimeSkippingEnv();

  it('completes a 30-day durable timer without waiting 30 days', async () => {
    expect(env.supportsTimeSkipping).toBe(true);
    const taskQueue = uniqueName('timers');
    const worker = await startWorker({ taskQueue, workflowsPath: require.resolve('./fixtures/timers') });
    const wallStart = Date.now();
    let result: Awaited<ReturnType<typeof sleepFor>>;
    try {
      result = await env.client.workflow.execute(sleepFor, { taskQueue, workflowId: uniqueName('sleep'), args: [THIRTY_DAYS_MS] });
    } finally {
      await worker.close();
    }
    const wallMs = Date.now() - wallStart;
    // Thirty days passed for the workflow...
    expect(result.elapsedMs).toBeGreaterThanOrEqual(THIRTY_DAYS_MS);
    // ...and a bound no real wait could meet, with room for a loaded machine; the measured figure is printed for the record.
    expect(wallMs).toBeLessThan(60_000);
    process.stdout.write(`[time-skipping] 30-day timer completed in ${wallMs} ms of wall time\n`);
  });
});
