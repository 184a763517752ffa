import { agentBuiltInTools, type AgentToolSource } from '../agents';

/**
 * Where an agent's tools come from, in order (the first source to name a tool keeps it, so
 * built-ins come first and a workspace's HTTP tool cannot shadow `hand_over`). One line per
 * source: knowledge search, business HTTP tools and the other built-ins are added here.
 */
export const AGENT_TOOL_SOURCES: readonly AgentToolSource[] = [
  // hand_over: the agent asks for a person (src/agents/handOverTool.ts).
  agentBuiltInTools,
];
