import { z } from 'zod';
import { conversationMessagesCollection, conversationsCollection } from '../../../src/conversations/store';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { conversationItem } from '../../v1/routes/conversations.schema';
import { conversationView } from '../../v1/routes/conversations';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, idParam, workspaceParams, type ConsoleDeps } from '../deps';

/** How many recent conversations the console lists, and how many turns of one it shows. */
export const CONSOLE_CONVERSATIONS_LIMIT = 50;
export const CONSOLE_TRANSCRIPT_LIMIT = 1000;

const CONVERSATION_NOT_FOUND = 'Conversation not found.';

/** A turn as an operator sees it: every kind, notes and trail rows included (the public transcript hides trail rows). */
const consoleTurn = z.object({
  message_id: z.string(),
  role: z.string(),
  kind: z.string(),
  text: z.string().nullable(),
  created_at: z.string().nullable(),
});

/** The web console's conversation views: the recent list and one transcript, whole. */
export function conversationReadRoutes(deps: ConsoleDeps): RouteDef[] {
  const conversations = conversationsCollection(deps.db);
  const messages = conversationMessagesCollection(deps.db);
  const base = `${CONSOLE_PREFIX}/workspaces/{workspace_id}/conversations`;
  return [
    route({
      method: 'get',
      path: base,
      operationId: 'listConsoleConversations',
      summary: `The workspace's most recently active conversations (at most ${CONSOLE_CONVERSATIONS_LIMIT}).`,
      params: workspaceParams({}),
      response: { status: 200, description: '`{items}`.', schema: z.object({ items: z.array(conversationItem) }) },
      errors: ['not_found'],
      handler: async (ctx) => {
        const docs = await conversations
          .find({ tenant_id: ctx.state.workspace!._id })
          .sort({ updated_at: -1, _id: -1 })
          .limit(CONSOLE_CONVERSATIONS_LIMIT)
          .toArray();
        ctx.body = { items: docs.map(conversationView) };
      },
    }),
    route({
      method: 'get',
      path: `${base}/{conversation_id}/transcript`,
      operationId: 'getConsoleTranscript',
      summary: `A conversation with its turns, oldest first (the first ${CONSOLE_TRANSCRIPT_LIMIT}), notes and trail rows included.`,
      params: workspaceParams({ conversation_id: idParam() }),
      notFound: { conversation_id: CONVERSATION_NOT_FOUND },
      response: {
        status: 200,
        description: '`{conversation, items}`.',
        schema: z.object({ conversation: conversationItem, items: z.array(consoleTurn) }),
      },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        const tenantId = ctx.state.workspace!._id;
        const conversation = await conversations.findOne({ _id: params.conversation_id });
        if (!conversation || conversation.tenant_id !== tenantId) throw new ApiError('not_found', CONVERSATION_NOT_FOUND);
        const turns = await messages
          .find({ tenant_id: tenantId, conversation_id: conversation._id })
          .sort({ _id: 1 })
          .limit(CONSOLE_TRANSCRIPT_LIMIT)
          .toArray();
        ctx.body = {
          conversation: conversationView(conversation),
          items: turns.map((t) => ({ message_id: t._id, role: t.role ?? 'user', kind: t.kind ?? 'turn', text: t.text ?? null, created_at: formatTimestamp(t.created_at) })),
        };
      },
    }),
  ];
}
