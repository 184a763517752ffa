import type { Middleware } from 'koa';
import { listRecentConversations, transcriptTurns } from '../../../src/conversations/lists';
import { findConversation } from '../../../src/conversations/store';
import type { RequestState } from '../../context';
import { ApiError, found } from '../../errors';
import { page, pageOf } from '../../pagination';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteDef } from '../../route';
import { conversationView, transcriptView } from '../../shared/conversationViews';
import { conversationItem, conversationParams, conversationsQuery, messagesQuery, transcriptMessage } from '../../shared/conversations.schema';

const LIST = 'conversations';
/** 412 `unsupported_resource` on a deployment without conversations (api-core §7). */
const requireConversations: Middleware<RequestState> = async (ctx, next) => {
  if (!ctx.state.workspace!.capabilities.conversations) {
    throw new ApiError('failed_precondition', 'Conversations are not available on this deployment.', { reason: 'unsupported_resource' });
  }
  await next();
};

const CONVERSATION_NOT_FOUND = 'Conversation not found.';

/** Conversations answer 412 on a deployment without them. */
const conversations = routeGroup({ auth: { scope: 'conversations:read' }, requires: requireConversations, errors: ['failed_precondition'] });
/** `/conversations/{conversation_id}…`: the conversation or 404. */
const conversation = conversations.group({ params: conversationParams, notFound: { conversation_id: CONVERSATION_NOT_FOUND }, errors: ['not_found'] });

export function conversationsRoutes(deps: Pick<PublicDeps, 'db' | 'cursors'>): RouteDef[] {
  const ownConversation = async (tenantId: string, id: string) => found(await findConversation(deps.db, tenantId, id), CONVERSATION_NOT_FOUND);

  return [
    conversations.get('listConversations', '/api/v1/conversations', {
      summary: 'List conversations, most recently active first.',
      query: conversationsQuery,
      response: { status: 200, description: 'A page of conversations.', schema: pageOf(conversationItem) },
      handler: async (ctx, { query: { limit, cursor, agent_id } }) => {
        const tenantId = ctx.state.workspace!._id;
        const after = cursor ? (deps.cursors.decode(cursor, tenantId, LIST) as [string, string]) : null;
        const docs = await listRecentConversations(deps.db, tenantId, limit, { agentId: agent_id }, after && { updatedAt: new Date(after[0]), id: after[1] });
        return page(docs, limit, conversationView, (last) =>
          deps.cursors.encode(tenantId, LIST, [last.updated_at.toISOString(), last._id]),
        );
      },
    }),
    conversation.get('getConversation', '/api/v1/conversations/{conversation_id}', {
      summary: 'Read one conversation.',
      response: { status: 200, description: 'The conversation.', schema: conversationItem },
      handler: async (ctx, { params: { conversation_id } }) => conversationView(await ownConversation(ctx.state.workspace!._id, conversation_id)),
    }),
    conversation.get('listConversationMessages', '/api/v1/conversations/{conversation_id}/messages', {
      summary:
        'Read a transcript, oldest first. Trail rows are filtered after a page is read, so a page may be short, with no next_cursor, while more turns follow: compare with message_count.',
      query: messagesQuery,
      response: { status: 200, description: 'A page of transcript messages.', schema: pageOf(transcriptMessage) },
      handler: async (ctx, { params: { conversation_id }, query: { limit, cursor } }) => {
        const tenantId = ctx.state.workspace!._id;
        const conversation = await ownConversation(tenantId, conversation_id);
        const read = await transcriptTurns(deps.db, conversation, limit, cursor ?? null);
        // The page is read first and trail rows dropped after, as the contract describes.
        const shown = read.filter((m) => m.kind !== 'trail');
        return page(shown, limit, transcriptView, (last) => last._id);
      },
    }),
  ];
}
