import { z } from 'zod';
import { cursorSecret } from '../../../src/auth/secrets';
import { listRecentConversations, transcriptTurns } from '../../../src/conversations/lists';
import { findConversation, type ConversationMessageDoc, type ConversationSearch } from '../../../src/conversations/store';
import { findOutboundMessages, type OutboundMessageDoc } from '../../../src/messaging/outboundMessages';
import { found } from '../../errors';
import { formatTimestamp } from '../../format';
import { conversationItem } from '../../shared/conversations.schema';
import { conversationView } from '../../shared/conversationViews';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { CursorCodec, page, pageOf, pageQuery } from '../../pagination';
import { readSearchText, type SearchText } from './searchText';

const ws = workspaceGroup();

/** A page of recent conversations, and how many turns of one conversation the console shows; one place owns them. */
export const CONSOLE_CONVERSATIONS_LIMITS = { defaultLimit: 25, maxLimit: 100 } as const;
export const CONSOLE_TRANSCRIPT_LIMIT = 1000;

const LIST = 'console_conversations';

/** GET …/conversations: a page, optionally narrowed by what the operator typed. */
const consoleConversationsQuery = pageQuery(CONSOLE_CONVERSATIONS_LIMITS.maxLimit, CONSOLE_CONVERSATIONS_LIMITS.defaultLimit).extend({
  q: z.string().trim().min(1, 'type a number or a name').max(100).optional(),
});

function searchOf(text: SearchText): ConversationSearch {
  return text.kind === 'number' ? { phone: text.e164 } : { name: text.name };
}

const CONVERSATION_NOT_FOUND = 'Conversation not found.';
const conversation = ws.record('conversation_id', CONVERSATION_NOT_FOUND);

/** A turn as an operator sees it: every kind, notes and trail rows included (the public transcript hides trail rows). */
const consoleTurn = z.object({
  message_id: z.string(),
  role: z.string(),
  /** The team member's name on a `human` turn written from the console inbox; null otherwise. */
  author_name: z.string().nullable(),
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
  const cursors = new CursorCodec(cursorSecret(deps.config));
  return [
    ws.get('listConsoleConversations', 'conversations', {
      summary: `The workspace's most recently active conversations, a page at a time (\`limit\` 1 to ${CONSOLE_CONVERSATIONS_LIMITS.maxLimit}, default ${CONSOLE_CONVERSATIONS_LIMITS.defaultLimit}; \`cursor\` for the next page). \`q\` narrows them to a customer's number (in any form POST /api/v1/calls accepts, read in the workspace's country) or name (any part, any case).`,
      query: consoleConversationsQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: pageOf(conversationItem) },
      handler: async (ctx, { query, tenantId, workspace }) => {
        const search = query.q === undefined ? {} : searchOf(readSearchText(query.q, workspace.country));
        // The cursor belongs to its search: another search's cursor is refused, not misread.
        const list = `${LIST}:${JSON.stringify([search.phone ?? '', search.name ?? ''])}`;
        const after = query.cursor ? (cursors.decode(query.cursor, tenantId, list) as [string, string]) : null;
        const docs = await listRecentConversations(deps.db, tenantId, query.limit, search, after ? { updatedAt: new Date(after[0]), id: String(after[1]) } : null);
        return page(docs, query.limit, conversationView, (last) => cursors.encode(tenantId, list, [last.updated_at.toISOString(), last._id]));
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
        const turns = await transcriptTurns(deps.db, conversation, CONSOLE_TRANSCRIPT_LIMIT);
        const sent = await sentMessagesOf(deps, tenantId, turns);
        return {
          conversation: conversationView(conversation),
          items: turns.map((t) => {
            const out = t.dedupe_key?.startsWith(SENT_TURN_PREFIX) ? sent.get(t.dedupe_key.slice(SENT_TURN_PREFIX.length)) : undefined;
            return {
              message_id: t._id,
              role: t.role ?? 'user',
              author_name: t.author_name ?? null,
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
