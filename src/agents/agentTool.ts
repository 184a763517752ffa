/**
 * The port every agent tool implements, whoever provides it (knowledge search, a workspace's
 * HTTP tools, the built-in tools) and whichever agent calls it (a WhatsApp chat turn, a live
 * call's realtime session). One shape for both channels is what lets a tool written once
 * answer in a chat and mid-call; the channel decides only how to wait for it (a chat turn
 * waits, a call says "one moment" when a tool is slow).
 */

/** JSON Schema of a tool's arguments, as the model is shown it (an object schema). */
export interface ToolParameters {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
}

/** Who is asking: enough for a tool to act for the right workspace and person. */
export interface AgentToolContext {
  tenantId: string;
  agentId: string;
  channel: 'whatsapp' | 'voice';
  /** The conversation the turn belongs to (WhatsApp; a call's once recorded). */
  conversationId?: string;
  /** The live call, on voice. */
  callId?: string;
  /** The customer, `+` and digits, when the channel knows it. */
  customerPhone?: string;
  /** Stable per tool run, for the tool's idempotency (a retried run repeats it). */
  runKey: string;
  now: Date;
}

/** A row of the conversation's internal trail (hidden from the public transcript). */
export interface TrailEntry {
  /** What happened, in words an operator reads: "Looked up order 1234 (200 in 312 ms)". */
  text: string;
  /** Which kind of trail row: a lookup, a tool run or a hold line. */
  kind: 'lookup' | 'tool' | 'hold';
  detail?: Record<string, unknown>;
}

export interface AgentToolResult {
  /** False when the tool failed; `output` then says why in words the agent can repeat. */
  ok: boolean;
  /** What the model is given back: JSON-serialisable and bounded by the tool. */
  output: unknown;
  trail: TrailEntry;
  /** Set when the tool asks for a person to take over (the built-in hand-over, or a business tool's answer). */
  handOver?: { reason: string };
  latencyMs: number;
}

export interface AgentTool {
  /** Unique within an agent's toolbox; `^[a-zA-Z0-9_-]{1,64}$` as the model APIs require. */
  name: string;
  description: string;
  parameters: ToolParameters;
  /** Never throws for a tool's own failure: answers `ok: false` so the turn goes on. */
  run(context: AgentToolContext, args: unknown, signal?: AbortSignal): Promise<AgentToolResult>;
}

/** Where tools come from; each provider answers the tools it offers to this agent. */
export type AgentToolSource = (context: Pick<AgentToolContext, 'tenantId' | 'agentId' | 'channel'>) => Promise<AgentTool[]>;
