import { randomBytes } from 'node:crypto';
import { conversationsCollection, recordTurn } from '../../../src/conversations';
import { ApiError } from '../../errors';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, idParam, workspaceParams, type ConsoleDeps } from '../deps';
import { turnBody, turnRecorded } from './conversations.schema';

const CONVERSATION_NOT_FOUND = 'Conversation not found.';

/**
 * Adds a turn to an existing conversation: an agent's reply, a team member's note or an
 * operational trail row, as a chat agent or a tool would record them.
 */
export function conversationConsoleRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/conversations/{conversation_id}/turns`,
      operationId: 'addConversationTurn',
      summary: 'Add a turn to a conversation; repeating a `turn_id` changes nothing.',
      params: workspaceParams({ conversation_id: idParam() }),
      notFound: { conversation_id: CONVERSATION_NOT_FOUND },
      body: turnBody,
      response: { status: 201, description: '`{conversation_id, message_id, duplicate}`.', schema: turnRecorded },
      errors: ['not_found'],
      handler: async (ctx, { params: { conversation_id }, body }) => {
        const tenantId = ctx.state.workspace!._id;
        const conversation = await conversationsCollection(deps.db).findOne({ _id: conversation_id });
        if (!conversation || conversation.tenant_id !== tenantId) throw new ApiError('not_found', CONVERSATION_NOT_FOUND);
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
        ctx.status = 201;
        ctx.body = { conversation_id: turn.conversationId, message_id: turn.messageId, duplicate: turn.duplicate };
      },
    }),
  ];
}
