/**
 * What a voice agent needs on a real line beyond its name and maximum call length. Stored on
 * the agent (`agents.voice`, each field optional); an agent that never set one speaks with
 * these defaults, so the demo agent and agents made before this existed work unchanged.
 */
export interface AgentVoice {
  /** Who the agent is, in a sentence ("a friendly assistant for Acme's billing team"). */
  persona: string;
  /** Standing instructions added to every call's own (tone, what never to say). */
  instructions: string;
  /** The realtime model's voice name. */
  voice: string;
  /** BCP 47 language the agent speaks and transcribes. */
  language: string;
  /** What the agent says first on an inbound call (an outbound call opens with the fixed opening). */
  greeting: string;
  /** Silence, in seconds, after which the agent ends the call as `idle`. */
  idle_seconds: number;
}

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
