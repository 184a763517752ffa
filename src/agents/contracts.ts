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
import { defineWorkflow } from '../temporal/workflowDefinition';

export interface ConversationAgentInput {
  tenantId: string;
  conversationId: string;
  senderId: string;
  /** The customer, `+` and digits. */
  customerPhone: string;
  /** Carried across continue-as-new: what is still to be answered, and who holds the conversation. */
  carried?: ConversationAgentCarry;
}

/** One inbound customer message, as the agent's workflow is told of it. */
export interface InboundForAgent {
  /** Our message id (`msg_…`), the turn the customer wrote. */
  messageId: string;
  /** The provider's id, for marking it read and showing typing. */
  providerMessageId: string;
  text: string | null;
  /** When the customer wrote it (ISO). */
  at: string;
}

/** Who answers the conversation now. */
export type ConversationHolder = { by: 'agent' } | { by: 'team'; reason: string; since: string; memberName: string | null };

export interface ConversationAgentCarry {
  pending: InboundForAgent[];
  holder: ConversationHolder;
  /** Turns answered so far, across runs (numbers each reply's idempotency key). */
  turnsAnswered: number;
}

export type ConversationAgentWorkflow = (input: ConversationAgentInput) => Promise<void>;
/** A conversation's chat agent (workflows/conversationAgent.ts). */
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
