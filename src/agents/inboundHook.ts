import { collections } from '../db/collections';
import type { InboundHook } from '../messaging';
import { signalWithStartWorkflow } from '../temporal/startWorkflow';
import { conversationAgentDefinition, conversationAgentWorkflowId, inboundForAgentSignal, type ConversationAgentSettings } from './contracts';

/**
 * The chat agent's reaction to a recorded customer message: when the sender has an agent
 * deployed, the conversation's workflow is told (signal-with-start on `agent-<conversation
 * id>`: one run per conversation, started by its first message). A conversation whose sender
 * has no agent costs no workflow, and no read beyond the webhook's routing read of the sender
 * (one point read when the message came another way, the console's injection). A redelivered
 * message signals again; the workflow takes each message id once.
 */
export function agentAnswersInbound(settings: ConversationAgentSettings): InboundHook {
  return async ({ db, temporal, taskQueue }, received) => {
    // The webhook's routing read, milliseconds old, when it made one: the inbound path reads the sender once.
    const routed = received.sender?._id === received.senderId ? received.sender : null;
    const sender = routed ?? await collections(db).senders.findOne({ _id: received.senderId }, { projection: { tenant_id: 1, agent_id: 1 } });
    if (!sender?.agent_id || sender.tenant_id !== received.tenantId) return;
    await signalWithStartWorkflow(temporal, conversationAgentDefinition, {
      workflowId: conversationAgentWorkflowId(received.conversationId),
      taskQueue,
      args: [{ tenantId: received.tenantId, conversationId: received.conversationId, senderId: received.senderId, customerPhone: received.customerPhone, settings }],
      signal: inboundForAgentSignal,
      signalArgs: [
        {
          messageId: received.messageId,
          providerMessageId: received.providerMessageId,
          text: received.text,
          at: received.at.toISOString(),
          // The routing read's whole document: the turn's checks take it rather than read it again.
          ...(routed ? { sender: { ...routed, created_at: routed.created_at.toISOString() } } : {}),
        },
      ],
    });
  };
}
