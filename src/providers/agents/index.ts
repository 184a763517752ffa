import type { AgentModel } from '../../agents';
import type { Config } from '../../config';
import { createOpenAiAgentModel } from './openAiAgentModel';
import { createSimulatedAgentModel } from './simulatedAgent';

/** The deployment's chat agent model (AGENT_MODEL_PROVIDER): one per worker. */
export function createAgentModel(config: Pick<Config, 'AGENT_MODEL_PROVIDER' | 'AGENT_MODEL_BASE_URL' | 'AGENT_MODEL_API_KEY' | 'AGENT_MODEL' | 'AGENT_MODEL_TIMEOUT_MS' | 'AGENT_MODEL_API' | 'AGENT_MODEL_STREAM'>): AgentModel {
  if (config.AGENT_MODEL_PROVIDER !== 'openai') return createSimulatedAgentModel();
  if (!config.AGENT_MODEL_BASE_URL || !config.AGENT_MODEL_API_KEY || !config.AGENT_MODEL) throw new Error('AGENT_MODEL_PROVIDER=openai needs AGENT_MODEL_BASE_URL, AGENT_MODEL_API_KEY and AGENT_MODEL');
  return createOpenAiAgentModel({ baseUrl: config.AGENT_MODEL_BASE_URL, apiKey: config.AGENT_MODEL_API_KEY, model: config.AGENT_MODEL, timeoutMs: config.AGENT_MODEL_TIMEOUT_MS, api: config.AGENT_MODEL_API, stream: config.AGENT_MODEL_STREAM === 'true' });
}

export { createSimulatedAgentModel } from './simulatedAgent';
export { createOpenAiAgentModel } from './openAiAgentModel';
