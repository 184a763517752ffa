import { NativeConnection, Worker } from '@temporalio/worker';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { ActivityDeps } from '../../activities';
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
  /** Test-only workflows (test/workflow/…/fixtures) instead of the run's bundle; no activities. */
  workflowsPath?: string;
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
    worker = await Worker.create({ connection, namespace, taskQueue: options.taskQueue, workflowsPath: options.workflowsPath });
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
