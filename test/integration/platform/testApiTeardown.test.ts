import { freePort } from '../../../src/local/net';
import { startTestApi } from '../../support/app';

/** Longer than the SDK's retries of an unavailable server (100 ms, then growing, jittered) go on, which is when an unended call would retry. */
const RETRY_WINDOW_MS = 2_000;

/**
 * The test API's Temporal client when the API closes with a call still retrying on it (a test
 * that timed out, a route's call left behind): the call ends CANCELLED and nothing is retried
 * against the closed channel, whose "Channel has been shut down" would be thrown from a timer,
 * an uncaught exception jest charges to the next file its worker runs.
 */
describe('closing the test API while its Temporal client retries a call', () => {
  it('ends the call with CANCELLED, and nothing is retried against the closed channel', async () => {
    // Nothing listens there: every attempt fails UNAVAILABLE, which the SDK retries from a timer.
    const api = await startTestApi({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` } });
    let closed = false;
    try {
      const retrying = api.temporal.workflowService.getSystemInfo({}).then(
        () => 'answered',
        (err: unknown) => err,
      );
      const within = (ms: number) => Promise.race([retrying, new Promise((resolve) => setTimeout(resolve, ms, 'still retrying'))]);
      expect(await within(300)).toBe('still retrying');

      closed = true;
      await api.close();
      expect(await within(10_000)).toMatchObject({ code: 1, details: 'the test environment was torn down' });
      // An unended call would retry in this window and throw outside any promise; jest would fail this test with it.
      await new Promise((resolve) => setTimeout(resolve, RETRY_WINDOW_MS));
    } finally {
      if (!closed) await api.close();
    }
  });
});
