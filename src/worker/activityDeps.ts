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
import { AGENT_TOOL_SOURCES } from '../main/agentToolSources';
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
  { voiceSimulator, ...base }: { db: Db; temporal: Client; taskQueue: string; voiceSimulator?: SimulatedVoiceOptions },
  overrides: Partial<ActivityDeps> = {},
): ActivityDeps {
  const events = createEventPublisher(base.db, createTemporalDispatcher(base.db, base.temporal, base.taskQueue));
  return {
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
    toolbox: createToolbox(AGENT_TOOL_SOURCES),
    ...overrides,
  };
}
