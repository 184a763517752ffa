import { TestWorkflowEnvironment } from '@temporalio/testing';
import { callsEndedOnTeardown } from './callsEndedOnTeardown';
import { addSearchAttributes } from '../../src/temporal/registerSearchAttributes';
import { toolPath } from '../../src/local/paths';
import { testServers } from './env';
import { lateBound } from './late';
import { startTestWorker, type TestWorker, type TestWorkerOptions } from './worker';

/**
 * The SDK's time-skipping environment on Temporal's Java test server, launched from the
 * wrapper that scripts/setup-tools.sh builds (any other choice would download and fail).
 * Tests take the file's shared one from useTimeSkippingEnv; this stays exported only for
 * test/workflow/webhookRetries.test.ts, which starts one per test until it moves over.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const calls = callsEndedOnTeardown();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: toolPath(testServers.toolsDir(), 'temporal-test-server') } },
    plugins: [calls.plugin],
  });
  // A test that timed out may still be waiting on this environment: its calls end here, so
  // none is retried against the closed channel after this file is done.
  const teardown = env.teardown.bind(env);
  env.teardown = async () => {
    calls.end();
    await teardown();
  };
  // The test server refuses a start or upsert naming a search attribute it does not know;
  // the dev server registers ours at its start (src/local/servers.ts), this one here.
  await addSearchAttributes(env.connection, env.namespace ?? 'default');
  return env;
}

// One per test file: jest gives each file its own module registry, so this is the file's.
let shared: { env: Promise<TestWorkflowEnvironment>; users: number; workers: TestWorker[] } | null = null;

export interface TimeSkipping {
  /** The file's environment (a stand-in until the beforeAll hook has started it). */
  env: TestWorkflowEnvironment;
  /** A worker on the environment's connection (see startTestWorker); closed by the caller, or with the environment. */
  startWorker: (options: Omit<TestWorkerOptions, 'connection' | 'address' | 'namespace'>) => Promise<TestWorker>;
}

/**
 * The time-skipping environment for every test in this file: started before the first test
 * that asks (one test server, about half a second), torn down after the last. Tests share it
 * one after another, never concurrently: time skipping is global to the server, and it skips
 * only while every client is waiting on a result (the SDK's lock/unlock around `result()`).
 * Each describe that calls this gets the same environment; give each test its own task queue
 * or workflow ids.
 */
export function useTimeSkippingEnv(): TimeSkipping {
  const env = lateBound<TestWorkflowEnvironment>('the time-skipping environment');
  beforeAll(async () => {
    shared ??= { env: createTimeSkippingEnv(), users: 0, workers: [] };
    shared.users++;
    env.set(await shared.env);
  });
  afterAll(async () => {
    env.set(undefined);
    if (!shared || --shared.users > 0) return;
    const { env: done, workers } = shared;
    shared = null;
    // Whichever afterAll runs first, workers stop before their connection closes.
    await Promise.all(workers.map((w) => w.close()));
    await (await done).teardown();
  });
  return {
    env: env.value,
    startWorker: async (options) => {
      const file = shared!;
      const real = await file.env;
      const worker = await startTestWorker({ ...options, connection: real.nativeConnection, namespace: real.namespace ?? 'default' });
      file.workers.push(worker);
      return worker;
    },
  };
}
