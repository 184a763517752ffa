import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { z } from 'zod';
import { conversationsCollection, recordTurn } from '../../../src/conversations';
import type { RequestState } from '../../context';
import { ApiError } from '../../errors';
import { bodyOf, withWorkspaceBody, type ConsoleDeps, type Params } from '../deps';

export const turnBody = z
  .object({
    role: z.enum(['user', 'model', 'human']),
    text: z.string().max(4096).nullable(),
    kind: z.enum(['turn', 'trail']).default('turn'),
    agent_id: z.string().max(64).optional(),
    /** Repeating a turn id changes nothing. */
    turn_id: z.string().min(1).max(128).optional(),
  })
  .strict();

/**
 * Adds a turn to an existing conversation: an agent's reply, a team member's note or an
 * operational trail row, as a chat agent or a tool would record them.
 */
export function conversationConsoleRoutes(router: Router<RequestState>, deps: ConsoleDeps): void {
  router.post('/workspaces/:workspace_id/conversations/:conversation_id/turns', ...withWorkspaceBody(deps, turnBody), async (ctx) => {
    const body = bodyOf(ctx, turnBody);
    const tenantId = ctx.state.workspace!._id;
    const { conversation_id } = (ctx as unknown as Params<'conversation_id'>).params;
    const conversation = await conversationsCollection(deps.db).findOne({ _id: conversation_id });
    if (!conversation || conversation.tenant_id !== tenantId) throw new ApiError('not_found', 'Conversation not found.');
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
  });
}
