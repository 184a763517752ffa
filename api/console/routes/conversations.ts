import { randomBytes } from 'node:crypto';
import { findConversation, recordTurn } from '../../../src/conversations';
import { found } from '../../errors';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { turnBody, turnRecorded } from './conversations.schema';

const ws = workspaceGroup();

const CONVERSATION_NOT_FOUND = 'Conversation not found.';
const conversation = ws.record('conversation_id', CONVERSATION_NOT_FOUND);

/**
 * Adds a turn to an existing conversation: an agent's reply, a team member's note or an
 * operational trail row, as a chat agent or a tool would record them.
 */
export function conversationConsoleRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    conversation.post('addConversationTurn', 'conversations/{conversation_id}/turns', {
      summary: 'Add a turn to a conversation; repeating a `turn_id` changes nothing.',
      body: turnBody,
      response: { status: 201, description: '`{conversation_id, message_id, duplicate}`.', schema: turnRecorded },
      handler: async (ctx, { params: { conversation_id }, body, tenantId }) => {
        const conversation = found(await findConversation(deps.db, tenantId, conversation_id), CONVERSATION_NOT_FOUND);
        const turn = await recordTurn(deps, {
          tenantId,
          channel: conversation.channel,
          threadKey: conversation.thread_key,
          customer: {},
          agentId: body.agent_id ?? null,
          role: body.role,
          text: body.text,
          kind: body.kind,
          at: deps.now(),
          dedupeKey: `console:${body.turn_id ?? randomBytes(12).toString('hex')}`,
        });
        return { conversation_id: turn.conversationId, message_id: turn.messageId, duplicate: turn.duplicate };
      },
    }),
  ];
}
