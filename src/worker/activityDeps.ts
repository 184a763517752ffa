import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { ActivityDeps } from '../../activities';
import { createTemporalDispatcher } from '../webhooks/dispatcher';
import { createEventPublisher } from '../events/publisher';
import { createSimulatedReader } from '../providers/reader/simulatedReader';
import { SimulatedVoiceProvider, type SimulatedVoiceOptions } from '../providers/voice/simulatedVoiceProvider';
import { readerScriptFromCalleeScripts } from '../providers/voice/simulatorScript';
import { SimulatedWhatsAppProvider } from '../providers/whatsapp/simulator';
import { SimulatedPaymentLinkProvider } from '../providers/payments/simulator';
import { scriptingFromConsole } from '../providers/payments/simulatorScript';
import { FEATURE_HOOKS } from '../main/featureHooks';
import { agentToolSources } from '../main/agentToolSources';
import { createLogger, type Logger } from '../observability/logger';
import { createToolbox } from '../agents';
import { createSimulatedAgentModel } from '../providers/agents';

/**
 * The one place activity dependencies are assembled, for the worker process and for tests,
 * so a test worker runs exactly what production runs. `overrides` replaces parts (a
 * scripted provider, a fixed clock). `voiceSimulator` picks how the simulated callee reports
 * line events (timers in this process by default; `{ mode: 'workflow' }` where a test needs
 * the time-skipping server to move the callee's timers).
 */
export function buildActivityDeps(
  { voiceSimulator, logger = createLogger({ LOG_LEVEL: 'warn' }, 'worker'), ...base }: { db: Db; temporal: Client; taskQueue: string; voiceSimulator?: SimulatedVoiceOptions; logger?: Logger },
  overrides: Partial<ActivityDeps> = {},
): ActivityDeps {
  const events = createEventPublisher(base.db, createTemporalDispatcher(base.db, base.temporal, base.taskQueue));
  const { toolbox, ...chosen } = overrides;
  const deps: Omit<ActivityDeps, 'toolbox'> = {
    ...base,
    events,
    voice: new SimulatedVoiceProvider(base.db, base.temporal, base.taskQueue, voiceSimulator),
    reader: createSimulatedReader(readerScriptFromCalleeScripts(base.db)),
    whatsapp: new SimulatedWhatsAppProvider(base.db, events),
    deploymentChannels: ['whatsapp', 'voice'],
    payments: new SimulatedPaymentLinkProvider(scriptingFromConsole(base.db, base.temporal, base.taskQueue)),
    // The features' reactions to calls, the one set every process's activities run.
    callHooks: FEATURE_HOOKS.calls,
    // The chat agent: the simulated model by default (the worker passes AGENT_MODEL_PROVIDER's), every tool source.
    agentModel: createSimulatedAgentModel(),
    ...chosen,
  };
  // Every tool source, acting through the providers chosen above (an override's included).
  return {
    ...deps,
    toolbox:
      toolbox ??
      createToolbox(
      agentToolSources({
        db: deps.db,
        temporal: deps.temporal,
        taskQueue: deps.taskQueue,
        events: deps.events,
        whatsapp: deps.whatsapp,
        payments: deps.payments,
        deploymentChannels: deps.deploymentChannels,
        logger,
        allowPrivateUrls: deps.webhooks?.allowPrivateUrls ?? false,
      }),
    ),
  };
}
