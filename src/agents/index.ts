/** The agents slice: what answers customers on every channel, and the tools it acts through. */
export type { AgentTool, AgentToolContext, AgentToolResult, AgentToolSource, ToolParameters, TrailEntry } from './agentTool';
export { createToolbox, type Toolbox } from './toolbox';
export { AgentModelPermanentError, AgentModelTemporaryError, type AgentModel, type ChatLine, type ModelRequest, type ModelToolSpec } from './agentModel';
export { agentBuiltInTools, handOverTool } from './handOverTool';
export { agentAnswersInbound } from './inboundHook';
export { conversationAgentSettings } from './settings';
export { AgentRefusal, type AgentRefusalReason, handBack, takeConversation, teamReply, type TeamReplyDeps } from './teamActions';
export { inboxEntries, inboxEntry, type InboxEntry, type InboxFilter, type InboxState } from './inbox';
export { gatherTurn, gatherTurnAndAsk } from './burst';
export { TurnContexts } from './turnContexts';
export { TurnChecks } from './turnChecks';
export { AGENT_SETUP_FRESH_MS, AgentSetups } from './agentSetups';
export { beginTurn, modelStep, runTool, sendReply, type AgentTurnDeps } from './turns';
export { HANDED_BACK_EVENT, HANDED_OVER_EVENT, recordHolderChange } from './holder';
export { RESERVED_TOOL_NAMES } from './reservedToolNames';
