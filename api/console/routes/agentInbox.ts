import { handBack, inboxEntries, takeConversation, teamReply, type InboxEntry } from '../../../src/agents';
import { createWhatsAppProvider, type WhatsAppProvider } from '../../../src/providers/whatsapp';
import { formatTimestamp } from '../../format';
import type { RouteDef } from '../../route';
import { itemsOf } from '../views';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { handBackBody, holderChanged, inboxItem, inboxQuery, takeBody, teamReplyBody, teamReplySent } from './agentInbox.schema';

const ws = workspaceGroup();
/** `conversations/{conversation_id}/…`: the conversation's agent must be running (412 otherwise). */
const held = ws.record('conversation_id', 'Conversation not found.').group({ errors: ['failed_precondition', 'conflict'] });

const inboxView = (entry: InboxEntry) => ({
  conversation_id: entry.conversation_id,
  sender_id: entry.sender_id,
  customer_phone: entry.customer_phone,
  state: entry.state,
  reason: entry.reason,
  member_name: entry.member_name,
  handed_over_at: formatTimestamp(entry.handed_over_at)!,
  handed_back_at: formatTimestamp(entry.handed_back_at),
  updated_at: formatTimestamp(entry.updated_at)!,
});

/**
 * The chat agent's inbox: conversations handed to a person (newest first, with the reason),
 * and what a team member does with one: take it, reply as `human` under their name, hand it
 * back. Who holds a conversation is its workflow's to say; these routes ask it.
 */
export function agentInboxRoutes(deps: ConsoleDeps, provider?: WhatsAppProvider): RouteDef[] {
  let chosen = provider;
  // Built on first use, so describing the routes (OpenAPI) needs no configuration.
  const whatsapp = () => (chosen ??= createWhatsAppProvider(deps.config, { db: deps.db, events: deps.events }));
  return [
    ws.get('listAgentInbox', 'agent-inbox', {
      summary: 'Conversations handed to a person, newest first: `waiting` for a first team reply (the default), every one `held` by the team, or `all` (handed back ones too).',
      query: inboxQuery,
      response: { status: 200, description: '`{items}`.', schema: itemsOf(inboxItem) },
      handler: async (ctx, { query, tenantId }) => ({ items: (await inboxEntries(deps.db, tenantId, query.filter)).map(inboxView) }),
    }),
    held.post('takeAgentConversation', 'conversations/{conversation_id}/hand-over', {
      summary: 'A team member takes the conversation from its agent: the agent stops answering until it is handed back or the hold times out.',
      body: takeBody,
      response: { status: 202, description: 'The workflow is told; the inbox shows it once recorded.', schema: holderChanged },
      handler: async (ctx, { params, body, tenantId }) => {
        await takeConversation(deps, { tenantId, conversationId: params.conversation_id, memberName: body.member_name, reason: body.reason });
        return { conversation_id: params.conversation_id, holder: 'team' as const };
      },
    }),
    held.post('handAgentConversationBack', 'conversations/{conversation_id}/hand-back', {
      summary: "Give a held conversation back to its agent: it answers the customer's next message.",
      body: handBackBody,
      response: { status: 202, description: 'The workflow is told; the inbox shows it once recorded.', schema: holderChanged },
      handler: async (ctx, { params, body, tenantId }) => {
        await handBack(deps, { tenantId, conversationId: params.conversation_id, memberName: body.member_name });
        return { conversation_id: params.conversation_id, holder: 'agent' as const };
      },
    }),
    held.post('replyToHeldConversation', 'conversations/{conversation_id}/team-replies', {
      summary: "A team member's reply to a held conversation, sent on WhatsApp and recorded as a `human` turn under the name given (the 24-hour window and opt-outs apply).",
      body: teamReplyBody,
      response: { status: 201, description: '`{conversation_id, message_id}`.', schema: teamReplySent },
      errors: ['permission_denied', 'provider_error'],
      handler: async (ctx, { params, body, tenantId }) => {
        const sent = await teamReply(
          { db: deps.db, events: deps.events, temporal: deps.temporal, whatsapp: whatsapp(), deploymentChannels: deps.config.DEPLOYMENT_CHANNELS, now: deps.now },
          { tenantId, conversationId: params.conversation_id, memberName: body.member_name, text: body.text },
        );
        return { conversation_id: sent.conversation_id, message_id: sent.message_id };
      },
    }),
  ];
}
