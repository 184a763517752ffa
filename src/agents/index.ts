/** The agents slice: what answers customers on every channel, and the tools it acts through. */
export type { AgentTool, AgentToolContext, AgentToolResult, AgentToolSource, ToolParameters, TrailEntry } from './agentTool';
export { createToolbox, type Toolbox } from './toolbox';
