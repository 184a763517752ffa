import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { findConversation } from '../conversations';
import { Refusal } from '../domain/refusal';
import type { EventPublisher } from '../events';
import { sendWhatsAppMessage, type WhatsAppProvider } from '../messaging';
import { conversationAgentWorkflowId, handBackSignal, handOverSignal, holderQuery, type ConversationHolder } from './contracts';
import { changeInboxEntry, inboxEntry } from './inbox';

/**
 * What a team member does from the console inbox: take a conversation from the agent, reply
 * to the customer as `human` under the name they give, and hand it back. The conversation's
 * workflow owns who holds it; these signal it, and the reply goes through messaging's send.
 */

export type AgentRefusalReason = 'agent_not_running' | 'not_held' | 'already_held';

/** Why a team action was refused; `api/refusals.ts` gives each reason its status. */
export class AgentRefusal extends Refusal<AgentRefusalReason> {
  override readonly name = 'AgentRefusal';
}

const NOT_RUNNING = 'No agent is answering this conversation (none is deployed to its sender, or it has been quiet for a day).';

async function holderOf(temporal: Client, tenantId: string, db: Db, conversationId: string): Promise<ConversationHolder> {
  if (!(await findConversation(db, tenantId, conversationId))) throw new AgentRefusal('agent_not_running', NOT_RUNNING);
  try {
    return await temporal.workflow.getHandle(conversationAgentWorkflowId(conversationId)).query(holderQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new AgentRefusal('agent_not_running', NOT_RUNNING);
    throw err;
  }
}

/** A team member takes the conversation: the agent stops answering until it is handed back or the hold times out. */
export async function takeConversation(deps: { db: Db; temporal: Client; now: () => Date }, input: { tenantId: string; conversationId: string; memberName: string; reason: string }): Promise<void> {
  const holder = await holderOf(deps.temporal, input.tenantId, deps.db, input.conversationId);
  if (holder.by === 'team') throw new AgentRefusal('already_held', `The conversation is already held by the team (${holder.reason}).`);
  await deps.temporal.workflow
    .getHandle(conversationAgentWorkflowId(input.conversationId))
    .signal(handOverSignal, { reason: input.reason, memberName: input.memberName, at: deps.now().toISOString() });
}

/** The team gives the conversation back: the agent answers the customer's next message. */
export async function handBack(deps: { db: Db; temporal: Client; now: () => Date }, input: { tenantId: string; conversationId: string; memberName: string }): Promise<void> {
  const holder = await holderOf(deps.temporal, input.tenantId, deps.db, input.conversationId);
  if (holder.by !== 'team') throw new AgentRefusal('not_held', 'The agent holds this conversation: there is nothing to hand back.');
  await deps.temporal.workflow.getHandle(conversationAgentWorkflowId(input.conversationId)).signal(handBackSignal, { at: deps.now().toISOString(), memberName: input.memberName });
}

export interface TeamReplyDeps {
  db: Db;
  events: EventPublisher;
  temporal: Client;
  whatsapp: WhatsAppProvider;
  deploymentChannels: readonly string[];
  now: () => Date;
}

/**
 * A team member's reply to a held conversation: sent through messaging (its guards: the
 * window, opt-out) as a `human` turn carrying the member's name, the inbox entry marked
 * answered, and the workflow told, so the hold's timeout counts from this reply.
 */
export async function teamReply(
  deps: TeamReplyDeps,
  input: { tenantId: string; conversationId: string; memberName: string; text: string; intentKey?: string },
): Promise<{ message_id: string; conversation_id: string }> {
  const holder = await holderOf(deps.temporal, input.tenantId, deps.db, input.conversationId);
  const entry = await inboxEntry(deps.db, input.tenantId, input.conversationId);
  if (holder.by !== 'team' || !entry || entry.state === 'returned') throw new AgentRefusal('not_held', 'The agent holds this conversation: take it first, then reply.');
  const sent = await sendWhatsAppMessage(
    { db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now: deps.now },
    {
      tenantId: input.tenantId,
      to: entry.customer_phone,
      text: input.text,
      senderId: entry.sender_id,
      metadata: { conversation_id: input.conversationId, member_name: input.memberName },
      intentKey: input.intentKey ?? `${input.tenantId}|once|team-${randomUUID()}`,
      transcriptRole: 'human',
      transcriptAuthor: input.memberName,
    },
  );
  const at = deps.now();
  await changeInboxEntry(deps.db, input.tenantId, input.conversationId, (current) =>
    current && current.state !== 'returned' ? { ...current, state: 'held', member_name: input.memberName, updated_at: at } : null,
  );
  await deps.temporal.workflow
    .getHandle(conversationAgentWorkflowId(input.conversationId))
    .signal(handOverSignal, { reason: holder.reason, memberName: input.memberName, at: at.toISOString() });
  return { message_id: sent.message_id, conversation_id: sent.conversation_id };
}
