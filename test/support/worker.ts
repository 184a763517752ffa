import { NativeConnection, Worker } from '@temporalio/worker';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { ActivityDeps } from '../../activities';
import { join } from 'node:path';
import type { Config } from '../../src/config';
import { startProcess, untilReady, type ManagedProcess } from '../../src/local/childProcess';
import { freePort, waitFor } from '../../src/local/net';
import { fromRoot } from '../../src/local/paths';
import { createWorker } from '../../src/worker/createWorker';
import { testServers } from './env';

export interface TestWorkerOptions {
  taskQueue: string;
  /** A connection the test owns (the time-skipping environment's); otherwise one to `address`, closed with the worker. */
  connection?: NativeConnection;
  /** The Temporal server to connect to when no connection is given; the run's dev server by default. */
  address?: string;
  namespace?: string;
  /** The real activities over these dependencies, with the run's workflow bundle. */
  deps?: ActivityDeps;
  /** Test-only workflows (test/workflow/…/fixtures) instead of the run's bundle; no activities unless `activities`. */
  workflowsPath?: string;
  /** The activities a fixture's workflows call (only with `workflowsPath`). */
  activities?: object;
  activityInterceptors?: ActivityInterceptorsFactory[];
}

export interface TestWorker {
  worker: Worker;
  taskQueue: string;
  /** Shuts the worker down, waits for it, and closes the connection it opened; rethrows a worker failure. Once. */
  close(): Promise<void>;
}

/**
 * The one way tests run a worker: the production worker (src/worker/createWorker.ts) over the
 * workflow bundle globalSetup built, or a fixture's workflows, already running when this
 * resolves.
 */
export async function startTestWorker(options: TestWorkerOptions): Promise<TestWorker> {
  const owned = options.connection ? null : await NativeConnection.connect({ address: options.address ?? testServers.temporalAddress() });
  const connection = options.connection ?? owned!;
  const namespace = options.namespace ?? 'default';
  let worker: Worker;
  if (options.workflowsPath) {
    worker = await Worker.create({ connection, namespace, taskQueue: options.taskQueue, workflowsPath: options.workflowsPath, activities: options.activities });
  } else {
    if (!options.deps) throw new TypeError('startTestWorker: the real workflows need activity deps (or pass workflowsPath)');
    ({ worker } = await createWorker({
      config: { TEMPORAL_ADDRESS: 'unused:0', TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: options.taskQueue },
      deps: options.deps,
      connection,
      workflowBundlePath: testServers.workflowBundle(),
      activityInterceptors: options.activityInterceptors,
    }));
  }
  const done = worker.run();
  let closed: Promise<void> | null = null;
  const stop = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    try {
      await done;
    } finally {
      await owned?.close();
    }
  };
  return { worker, taskQueue: options.taskQueue, close: () => (closed ??= stop()) };
}

/**
 * The real worker process (src/main/worker.ts) against a test API's database and Temporal, for
 * tests that kill it: resolves once its /healthz answers. `env` adds settings (a provider, say).
 */
export async function startWorkerProcess(
  config: Pick<Config, 'MONGODB_URL' | 'MONGODB_DB' | 'TEMPORAL_ADDRESS' | 'TEMPORAL_TASK_QUEUE'>,
  options: { logName: string; env?: Record<string, string> },
): Promise<ManagedProcess> {
  const metricsPort = await freePort();
  const child = startProcess('worker', process.execPath, ['-r', fromRoot('test/support/registerTs.cjs'), fromRoot('src/main/worker.ts')], {
    env: {
      ...process.env,
      ...options.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      MONGODB_URL: config.MONGODB_URL,
      MONGODB_DB: config.MONGODB_DB,
      TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      WORKER_METRICS_PORT: String(metricsPort),
    },
    logFile: join(testServers.runDir(), `${options.logName}-${metricsPort}.log`),
  });
  await untilReady(child, waitFor('worker', async () => (await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).ok, 45_000, 250));
  return child;
}
