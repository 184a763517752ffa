import { useTimeSkippingEnv } from '../../support/timeSkipping';
import type { TestWorker } from '../../support/worker';
import { uniqueName } from '../../support/env';
import { slowAddSignal, ticker } from './fixtures/ticker';

/**
 * workflows/continueAsNew.ts on the time-skipping server, through a test-only workflow: a
 * new run starts when due, waits for a handler still running, and carries the state over.
 */
describe('continueAsNewIfDue (time-skipping)', () => {
  const { env, startWorker } = useTimeSkippingEnv();
  let worker: TestWorker;
  const taskQueue = uniqueName('can');

  beforeAll(async () => {
    worker = await startWorker({ taskQueue, workflowsPath: require.resolve('./fixtures/ticker') });
  });

  afterAll(async () => {
    await worker?.close();
  });

  it('continues as new when the history passes the threshold, after a running handler finishes, carrying the state', async () => {
    const workflowId = uniqueName('ticker');
    // The signal arrives with the start, so its handler is mid-pause (10 min) when the first run
    // is due (after its first 1-minute tick): the run must wait for it and carry what it added.
    const handle = await env.client.workflow.signalWithStart(ticker, {
      taskQueue,
      workflowId,
      args: [{ ticks: 0, added: 0, runs: 1 }, 3, 1],
      signal: slowAddSignal,
      signalArgs: [5],
    });
    const started = await env.currentTimeMs();
    expect(await handle.result()).toEqual({ ticks: 3, added: 5, runs: 3 });
    // The first run lasted as long as the handler: 10 minutes, not one tick.
    expect((await env.currentTimeMs()) - started).toBeGreaterThanOrEqual(12 * 60_000);
    const first = env.client.workflow.getHandle(workflowId, handle.signaledRunId);
    const history = await first.fetchHistory();
    const last = history.events![history.events!.length - 1]!;
    expect(last.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  });

  it('stays in one run while the history is under the threshold', async () => {
    const result = await env.client.workflow.execute(ticker, {
      taskQueue,
      workflowId: uniqueName('ticker'),
      args: [{ ticks: 0, added: 0, runs: 1 }, 3, 1_000],
    });
    expect(result).toEqual({ ticks: 3, added: 0, runs: 1 });
  });
});
