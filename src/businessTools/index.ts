/**
 * The business tools slice: HTTP tools a workspace declares and its agents call
 * (docs/agents.md "Business tools"). What others use: the agent tool source, the console's
 * actions and reads, the limits.
 */
export { businessToolSource, type BusinessToolDeps } from './businessToolSource';
export { callBusinessTool, handOverAsked } from './callTool';
export { BUSINESS_TOOL_LIMITS, RESERVED_TOOL_NAMES } from './limits';
export { argumentsProblem, schemaProblem, toolParameters } from './parametersSchema';
export { BusinessToolRefusal, type BusinessToolRefusalReason } from './refusal';
export { findBusinessTool, listBusinessTools, type BusinessToolDoc } from './store';
export { createBusinessTool, deleteBusinessTool, type ToolFields } from './toolActions';
