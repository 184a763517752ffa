import type { AgentVoice } from '../db/collections';

/**
 * An agent's voice settings (`AgentVoice`, stored on the agent: src/db/collections.ts). An
 * agent that never set one speaks with these defaults, so the demo agent and agents made
 * before this existed work unchanged.
 */
export type { AgentVoice };

export const DEFAULT_AGENT_VOICE: AgentVoice = {
  persona: 'a polite, concise phone assistant for the business',
  instructions: 'Speak briefly and clearly. Never invent facts about the business. If the person asks for a human, offer to transfer them.',
  voice: 'alloy',
  language: 'en',
  greeting: 'Hello, thanks for calling. How can I help you today?',
  idle_seconds: 20,
};

export function agentVoice(stored: Partial<AgentVoice> | undefined): AgentVoice {
  return { ...DEFAULT_AGENT_VOICE, ...(stored ?? {}) };
}
