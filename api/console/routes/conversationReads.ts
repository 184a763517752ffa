import { z } from 'zod';
import { conversationTurns, findConversation, recentConversations, type ConversationMessageDoc } from '../../../src/conversations/store';
import { findOutboundMessages, type OutboundMessageDoc } from '../../../src/messaging/outboundMessages';
import { found } from '../../errors';
import { formatTimestamp } from '../../format';
import { conversationItem } from '../../shared/conversations.schema';
import { conversationView } from '../../shared/conversationViews';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { itemsOf } from '../views';

const ws = workspaceGroup();

/** How many recent conversations the console lists, and how many turns of one it shows. */
export const CONSOLE_CONVERSATIONS_LIMIT = 50;
export const CONSOLE_TRANSCRIPT_LIMIT = 1000;

const CONVERSATION_NOT_FOUND = 'Conversation not found.';
const conversation = ws.record('conversation_id', CONVERSATION_NOT_FOUND);

/** A turn as an operator sees it: every kind, notes and trail rows included (the public transcript hides trail rows). */
const consoleTurn = z.object({
  message_id: z.string(),
  role: z.string(),
  kind: z.string(),
  text: z.string().nullable(),
  created_at: z.string().nullable(),
  /** The campaign whose message this turn is (a business send); null otherwise. */
  campaign_id: z.string().nullable(),
  /** The template's name when the turn is a template message the business sent; null otherwise. */
  template: z.string().nullable(),
});

/** What a business send's transcript turn is deduplicated on: `wa-out:` + its outbound message id (src/messaging/sendMessage.ts turnOf). */
const SENT_TURN_PREFIX = 'wa-out:';

/**
 * The outbound records behind a transcript's business sends, by outbound message id: read
 * by primary key, so telling a campaign's template message from a team member's reply
 * costs one lookup per page, not a scan.
 */
async function sentMessagesOf(deps: ConsoleDeps, tenantId: string, turns: ConversationMessageDoc[]): Promise<Map<string, OutboundMessageDoc>> {
  const ids = turns.filter((t) => t.role === 'human' && t.dedupe_key?.startsWith(SENT_TURN_PREFIX)).map((t) => t.dedupe_key.slice(SENT_TURN_PREFIX.length));
  if (!ids.length) return new Map();
  const sent = await findOutboundMessages(deps.db, tenantId, ids);
  return new Map(sent.map((m) => [m._id, m]));
}

/** The web console's conversation views: the recent list and one transcript, whole. */
export function conversationReadRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    ws.get('listConsoleConversations', 'conversations', {
      summary: `The workspace's most recently active conversations (at most ${CONSOLE_CONVERSATIONS_LIMIT}).`,
      response: { status: 200, description: '`{items}`.', schema: itemsOf(conversationItem) },
      handler: async (ctx, { tenantId }) => {
        const docs = await recentConversations(deps.db, tenantId, CONSOLE_CONVERSATIONS_LIMIT);
        return { items: docs.map(conversationView) };
      },
    }),
    conversation.get('getConsoleTranscript', 'conversations/{conversation_id}/transcript', {
      summary: `A conversation with its turns, oldest first (the first ${CONSOLE_TRANSCRIPT_LIMIT}), notes and trail rows included.`,
      response: {
        status: 200,
        description: '`{conversation, items}`.',
        schema: z.object({ conversation: conversationItem, items: z.array(consoleTurn) }),
      },
      handler: async (ctx, { params, tenantId }) => {
        const conversation = found(await findConversation(deps.db, tenantId, params.conversation_id), CONVERSATION_NOT_FOUND);
        const turns = await conversationTurns(deps.db, tenantId, conversation._id, CONSOLE_TRANSCRIPT_LIMIT);
        const sent = await sentMessagesOf(deps, tenantId, turns);
        return {
          conversation: conversationView(conversation),
          items: turns.map((t) => {
            const out = t.dedupe_key?.startsWith(SENT_TURN_PREFIX) ? sent.get(t.dedupe_key.slice(SENT_TURN_PREFIX.length)) : undefined;
            return {
              message_id: t._id,
              role: t.role ?? 'user',
              kind: t.kind ?? 'turn',
              text: t.text ?? null,
              created_at: formatTimestamp(t.created_at),
              campaign_id: out?.campaign_id ?? null,
              template: out?.template?.name ?? null,
            };
          }),
        };
      },
    }),
  ];
}
