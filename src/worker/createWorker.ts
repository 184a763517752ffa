import { NativeConnection, Worker, type ActivityInterceptorsFactory, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { temporalConnectionOptions, type TemporalConnectionConfig } from '../temporal/connectionSettings';
import { requireFeatureHooks } from '../main/featureHooks';
import { createActivities, type ActivityDeps } from '../../activities';

export interface WorkerSetup {
  config: TemporalConnectionConfig & Pick<Config, 'TEMPORAL_TASK_QUEUE'>;
  deps: ActivityDeps;
  /** A prebuilt bundle (tests bundle once per run); otherwise the worker bundles at start. */
  workflowBundlePath?: string;
  connection?: NativeConnection;
  activityInterceptors?: ActivityInterceptorsFactory[];
}

export const workflowsPath = require.resolve('../../workflows');

export async function createWorker(setup: WorkerSetup): Promise<{ worker: Worker; connection: NativeConnection }> {
  // Calls end and statuses land in these activities: a worker without the feature hooks would drop the campaign reactions.
  requireFeatureHooks();
  const connection =
    setup.connection ?? (await NativeConnection.connect(temporalConnectionOptions(setup.config)));
  const code: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = setup.workflowBundlePath
    ? { workflowBundle: { codePath: setup.workflowBundlePath } }
    : { workflowsPath };
  const worker = await Worker.create({
    connection,
    namespace: setup.config.TEMPORAL_NAMESPACE,
    taskQueue: setup.config.TEMPORAL_TASK_QUEUE,
    activities: createActivities(setup.deps),
    interceptors: { activity: setup.activityInterceptors ?? [] },
    ...code,
  });
  return { worker, connection };
}
