/**
 * What the API, the activities and the chat agent's workflow share. One long-lived workflow
 * per conversation that has an agent deployed on its sender (an entity workflow): its id is
 * `agent-<conversation id>`, so a burst of inbound messages signals one run (signal-with-start)
 * and the engine refuses a second. A conversation without an agent starts nothing: Temporal
 * cost grows by conversation with an agent, never by message.
 *
 * Imported by workflow code: the SDK's define* helpers and types only, no I/O.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { SenderDoc } from '../db/collections';
import { defineWorkflow } from '../temporal/workflowDefinition';

export interface ConversationAgentInput {
  tenantId: string;
  conversationId: string;
  senderId: string;
  /** The customer, `+` and digits. */
  customerPhone: string;
  /** Carried across continue-as-new: what is still to be answered, and who holds the conversation. */
  carried?: ConversationAgentCarry;
  /** The deployment's agent settings when the run started (src/agents/settings.ts); absent: the defaults. */
  settings?: ConversationAgentSettings;
}

/** How the chat agent paces a conversation (AGENT_* settings, read by whoever starts the run). */
export interface ConversationAgentSettings {
  /** A burst is over once the customer has been quiet this long: its messages are one turn. */
  burstQuietMs: number;
  /** A burst that never goes quiet is answered after this long anyway. */
  burstMaxMs: number;
  /** A conversation held for a person goes back to the agent after this long without a team reply. */
  holdTimeoutMs: number;
  /** Model calls in one turn (each tool round is one more); past it the agent hands over. */
  maxModelCalls: number;
  /** Turns a run answers before it continues as new, when idle (default CONVERSATION_TURNS_PER_RUN). */
  turnsPerRun?: number;
}

/** A run continues as new after this many turns (about a dozen history events each), at an idle moment. */
export const CONVERSATION_TURNS_PER_RUN = 50;
/** A conversation quiet for a day closes its run (the 24-hour window has closed by then); its next message starts a new one. */
export const CONVERSATION_IDLE_CLOSE_MS = 24 * 60 * 60_000;
/** What the customer is told when the agent hands over without words of its own (it could not answer). */
export const HOLD_MESSAGE = 'Let me pass you to a colleague: a person from our team will reply here shortly.';
/** The defaults of AGENT_* (src/config.ts), for a run started without settings. */
export const DEFAULT_AGENT_SETTINGS: ConversationAgentSettings = { burstQuietMs: 1_500, burstMaxMs: 20_000, holdTimeoutMs: 60 * 60_000, maxModelCalls: 4 };

/** One inbound customer message, as the agent's workflow is told of it. */
export interface InboundForAgent {
  /** Our message id (`msg_…`), the turn the customer wrote. */
  messageId: string;
  /** The provider's id, for marking it read and showing typing. */
  providerMessageId: string;
  text: string | null;
  /** When the customer wrote it (ISO). */
  at: string;
  /** The sender as the inbound path read it routing this message, when it did: the turn's checks take it while fresh (src/agents/turns.ts). */
  sender?: RoutedSender;
}

/** A sender document as a signal carries it: its time as ISO. */
export type RoutedSender = Omit<SenderDoc, 'created_at'> & { created_at: string };

/** What the workflow was told of a turn's burst: the newest time written, and the sender as the last message's routing read it. */
export interface TurnInbound {
  /** The newest `at` of the burst (ISO): the 24-hour window is open at least until a day after it. */
  at: string;
  /** The sender as routed for the burst's last message, with that message's `at` (the read came after it). */
  routed?: { sender: RoutedSender; at: string };
}

/** Who answers the conversation now. */
export type ConversationHolder = { by: 'agent' } | { by: 'team'; reason: string; since: string; memberName: string | null };

export interface ConversationAgentCarry {
  pending: InboundForAgent[];
  holder: ConversationHolder;
  /** Turns answered so far, across runs (numbers each reply's idempotency key). */
  turnsAnswered: number;
  /** The newest message ids already taken, so a redelivered message is not answered twice across runs. */
  recentMessageIds?: string[];
  /** When the team last acted on a held conversation (ISO): the hold times out from there. */
  heldSince?: string;
}

/** What a turn is about: the conversation, and the burst of customer messages it answers. */
export interface AgentTurn {
  tenantId: string;
  conversationId: string;
  senderId: string;
  customerPhone: string;
  workflowId: string;
  /** Numbers the turn across runs (`turn-<n>`), the reply's idempotency key with the workflow id. */
  turnKey: string;
  /** The burst's messages (ours), oldest first. */
  messageIds: string[];
  /** The provider's id of the newest message: the one marked read. */
  providerMessageId: string;
  /** When the turn was taken (workflow time, ISO), so a retried step records the same instant. */
  at: string;
  /** The burst's newest message as the workflow was told of it (runs of earlier code: absent, and the checks read all). */
  inbound?: TurnInbound;
}

/** What the model was told and said within one turn, beyond the transcript (tool calls and their results). */
export type TurnItem =
  | { type: 'tool_call'; callId: string; name: string; arguments: string }
  | { type: 'tool_result'; callId: string; name: string; output: string };

/** Whether a turn may be answered: only by a deployed agent, inside the window, to a customer who did not opt out. */
export type TurnStart = { answer: true; agentId: string } | { answer: false; reason: 'no_agent' | 'opted_out' | 'window_closed' };

/** A turn's first step, its burst gathered: the checks' answer, and the burst's messages and newest provider id as they are now. */
export interface GatheredTurn {
  start: TurnStart;
  /** Every message of the burst (ours), oldest first: those the workflow knew and those gathered. */
  messageIds: string[];
  providerMessageId: string;
}

/** The turn's first step when asked to make the first model call too: `said` null when it did not (not answered, or the model failed: the workflow's model step asks again). */
export interface GatheredAndAsked extends GatheredTurn {
  said: ModelStepTaken | null;
}

/** One model call: its text (the reply, when there are no tool calls) and the tools it asks for. */
export interface ModelStep {
  text: string | null;
  toolCalls: { callId: string; name: string; arguments: string }[];
}

/** A model step as the workflow gets it: with the reply, when the step was asked to send a final answer itself and did. */
export interface ModelStepTaken extends ModelStep {
  /** Absent: the step sent nothing (tool calls, an empty answer, or its send failed), and the workflow's reply step sends. */
  reply?: ReplyOutcome;
}

export interface ToolRun {
  /** What the model is given back (JSON text). */
  output: string;
  /** The tool asked for a person (the built-in `hand_over`, or a business tool's answer). */
  handOver: { reason: string } | null;
  /** Its trail row, recorded with the turn's reply (absent from runs of earlier releases, which recorded it themselves). */
  trail?: PendingTrailRow;
}

/** A trail row a step leaves to the reply's step, which records the turn's rows and its reply in one write. */
export interface PendingTrailRow {
  text: string;
  /** Unique within the workspace (the tool run's `runKey`), so a repeated write records it once. */
  dedupeKey: string;
  /** When it happened (ISO). */
  at: string;
}

/** A reply sent, or why not (a trail row then says so in the conversation). */
export type ReplyOutcome = { sent: true; messageId: string } | { sent: false; reason: string };

/** Who holds the conversation now, as the workflow decided it: recorded in the inbox, the trail and an event. */
export interface HolderChange {
  tenantId: string;
  conversationId: string;
  senderId: string;
  customerPhone: string;
  workflowId: string;
  to: ConversationHolder;
  /** Why, in words: the reason given for a hand-over, or what ended the hold (a person, the timeout). */
  reason: string;
  memberName: string | null;
  at: string;
}

export type ConversationAgentWorkflow = (input: ConversationAgentInput) => Promise<void>;
/** A conversation's chat agent (workflows/agents/conversationAgent.ts). */
export const conversationAgentDefinition = defineWorkflow<ConversationAgentWorkflow>('conversationAgentWorkflow');

export function conversationAgentWorkflowId(conversationId: string): string {
  return `agent-${conversationId}`;
}

/** The customer wrote; sent with signal-with-start by whoever records the inbound turn. */
export const inboundForAgentSignal = defineSignal<[InboundForAgent]>('inboundForAgent');
/** A team member takes the conversation (console inbox), or the agent asked for one: the agent stops answering. */
export const handOverSignal = defineSignal<[{ reason: string; memberName: string | null; at: string }]>('handOver');
/** The team gives the conversation back to the agent (console inbox, or the hold timed out). */
export const handBackSignal = defineSignal<[{ at: string; memberName: string | null }]>('handBack');
export const holderQuery = defineQuery<ConversationHolder>('holder');
