import { builtInToolSource, type BuiltInToolDeps } from '../../src/agents/builtIns';
import { createToolbox, type AgentToolContext, type Toolbox } from '../../src/agents';
import { createSimulatedTriage } from '../../src/tickets';
import { createLogger } from '../../src/observability/logger';
import { buildActivityDeps } from '../../src/worker/activityDeps';
import type { TestApi } from './app';

/** The built-in tools' dependencies as the roots assemble them: the worker's simulated providers. */
export function builtInDeps(api: TestApi): BuiltInToolDeps {
  const activity = buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE });
  return {
    db: api.db,
    events: activity.events,
    temporal: api.temporal,
    taskQueue: api.config.TEMPORAL_TASK_QUEUE,
    whatsapp: activity.whatsapp,
    deploymentChannels: activity.deploymentChannels,
    payments: activity.payments,
    triage: createSimulatedTriage(),
    logger: createLogger({ LOG_LEVEL: 'silent' }, 'test'),
  };
}

export function builtInToolbox(api: TestApi): Toolbox {
  return createToolbox([builtInToolSource(builtInDeps(api))]);
}

let runs = 0;
/** A tool run's context on a call; `runKey` fresh unless given. */
export function toolContext(tenantId: string, agentId: string, more: Partial<AgentToolContext> = {}): AgentToolContext {
  runs += 1;
  return { tenantId, agentId, channel: 'voice', runKey: `test-run-${Date.now()}-${runs}`, now: new Date(), ...more };
}
