import type { Config } from '../config';
import type { ConversationAgentSettings } from './contracts';

/** Model calls in one turn: the first, and one after each round of tool results. */
export const MAX_MODEL_CALLS_PER_TURN = 4;
/** A burst that never goes quiet is still answered within this long. */
export const BURST_MAX_MS = 20_000;

/** The chat agent's pacing from the deployment's settings (docs/agents.md, "Settings"). */
export function conversationAgentSettings(config: Pick<Config, 'AGENT_BURST_QUIET_MS' | 'AGENT_HOLD_TIMEOUT_MINUTES'>): ConversationAgentSettings {
  return {
    burstQuietMs: config.AGENT_BURST_QUIET_MS,
    burstMaxMs: Math.max(BURST_MAX_MS, config.AGENT_BURST_QUIET_MS),
    holdTimeoutMs: config.AGENT_HOLD_TIMEOUT_MINUTES * 60_000,
    maxModelCalls: MAX_MODEL_CALLS_PER_TURN,
  };
}
