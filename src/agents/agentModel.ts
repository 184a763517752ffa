import type { ToolParameters } from './agentTool';
import type { ModelStep, TurnItem } from './contracts';

/**
 * The port a chat agent's model implements (the agents slice owns it; the simulator and the
 * OpenAI-compatible adapter live in src/providers/agents/ and the composition roots choose
 * one). One call is one model request: the agent loop (tools, their results, the next call)
 * belongs to the conversation's workflow, so each call and each tool run is its own durable
 * step.
 */

/** A turn of the conversation as the model reads it. */
export interface ChatLine {
  /** `user` the customer; `assistant` the agent, or a team member (named in the text). */
  role: 'user' | 'assistant';
  text: string;
}

export interface ModelToolSpec {
  name: string;
  description: string;
  parameters: ToolParameters;
}

export interface ModelRequest {
  instructions: string;
  /** The conversation so far, oldest first, the turn's customer messages last. */
  history: ChatLine[];
  /** How many of `history`'s last lines are this turn's customer messages (the burst being answered). */
  turnLines: number;
  /** This turn's tool calls and their results, in order. */
  items: TurnItem[];
  tools: ModelToolSpec[];
  /** Stable per step, for providers that deduplicate requests. */
  stepKey: string;
}

/** A model call that failed in a way a retry may fix (a timeout, a 5xx, a 429). */
export class AgentModelTemporaryError extends Error {
  override readonly name = 'AgentModelTemporaryError';
}

/** A model call that will fail the same way again (bad credentials, an unknown model, a refused request). */
export class AgentModelPermanentError extends Error {
  override readonly name = 'AgentModelPermanentError';
}

export interface AgentModel {
  readonly name: string;
  respond(request: ModelRequest, signal?: AbortSignal): Promise<ModelStep>;
}
