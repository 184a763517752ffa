/**
 * Every limit of a workspace's HTTP tools (docs/agents.md "Business tools"), in one place: the
 * console schema, the declaration checks and the call read them here.
 */
export const BUSINESS_TOOL_LIMITS = {
  /** Tools one workspace declares; held as numbered places, so parallel creates cannot pass it. */
  maxToolsPerWorkspace: 20,
  /** As the model APIs require of a function's name. */
  namePattern: /^[a-zA-Z0-9_-]{1,64}$/,
  descriptionMaxChars: 1_000,
  /** The parameters' JSON Schema, serialised. */
  parametersMaxBytes: 8 * 1024,
  urlMaxChars: 2_000,
  /** A call's own timeout, when the tool names none. */
  defaultTimeoutMs: 10_000,
  minTimeoutMs: 500,
  /** No tool waits longer, whatever it declares: a chat turn and a live call both need an answer. */
  maxTimeoutMs: 30_000,
  /** The answer is read up to this many bytes and refused past it (the read stops there). */
  maxResponseBytes: 32 * 1024,
  /** How much of the answer the trail row keeps. */
  trailResultChars: 2_000,
  /** An error text taken from a failing answer for the model. */
  errorTextChars: 300,
  /** What a hand-over's reason may say. */
  handOverReasonChars: 300,
} as const;

/** Names the workspace may not give a tool: the built-ins' (the agents slice owns the list). */
export { RESERVED_TOOL_NAMES } from '../agents';
