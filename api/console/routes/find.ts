import { z } from 'zod';
import { listCalls } from '../../../src/calls/callList';
import { findCall, type CallDoc } from '../../../src/calls/callStore';
import { findLineCallByProviderId } from '../../../src/calls/line/lineCalls';
import { conversationsOfNumber, listRecentConversations } from '../../../src/conversations/lists';
import { findConversation, type ConversationDoc } from '../../../src/conversations/store';
import { formatTimestamp } from '../../format';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { callPersonNames } from '../personNames';
import { itemsOf } from '../views';
import { readSearchText } from './searchText';

const ws = workspaceGroup();

/** How many calls, and how many conversations, one Find answers with at most; one place owns it. */
export const FIND_LIMIT = 10;

/** Twilio's id for a call (CallSid): `CA` and 32 hex digits. */
const CALL_SID = /^CA[0-9a-f]{32}$/i;

const findQuery = z.object({ q: z.string().trim().min(1, 'type a number, a name or an id').max(100) });

const found = z.object({
  kind: z.enum(['call', 'conversation']),
  id: z.string(),
  /** Who: the customer's name where one is stored, else their number. */
  who: z.string().nullable(),
  /** A call's status, a conversation's channel. */
  detail: z.string(),
  /** When the call was created, when the conversation was last active. */
  at: z.string().nullable(),
});
type Found = z.infer<typeof found>;

/** `who` a call was with: their name and number where the name is known (api/console/personNames.ts), else the number. */
const callFound = (call: CallDoc, name: string | null | undefined): Found => ({
  kind: 'call',
  id: call._id,
  who: name ? `${name} (${call.to})` : call.to,
  detail: call.status,
  at: formatTimestamp(call.created_at),
});
const conversationFound = (c: ConversationDoc): Found => ({
  kind: 'conversation',
  id: c._id,
  who: c.customer?.name ?? c.customer?.display_name ?? c.customer?.phone ?? null,
  detail: c.channel,
  at: formatTimestamp(c.updated_at),
});

/**
 * GET …/find?q=: the console's Find. An id (`call_…`, `con_…`, a Twilio CallSid) is read by
 * its key; a number (in any form POST /api/v1/calls accepts) finds the calls with it and
 * its conversations; anything else is part of a customer's name, matched on conversations (a
 * call stores no name). Each kind is the newest first, at most FIND_LIMIT.
 */
export function findRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    ws.get('findConsoleRecords', 'find', {
      summary: `Find calls and conversations by an id (\`call_…\`, \`con_…\`, a Twilio CallSid), a number (any form POST /api/v1/calls accepts, read in the workspace's country) or part of a customer's name (conversations; any case). At most ${FIND_LIMIT} of each kind, newest first.`,
      query: findQuery,
      response: { status: 200, description: '`{items}`: calls first, then conversations.', schema: itemsOf(found) },
      handler: async (ctx, { query, tenantId, workspace }) => {
        const q = query.q;
        const callsFound = async (calls: CallDoc[]) => {
          const names = await callPersonNames(deps.db, tenantId, workspace.country, calls);
          return calls.map((call) => callFound(call, names.get(call._id)));
        };
        if (q.startsWith('call_')) {
          const call = await findCall(deps.db, tenantId, q);
          return { items: await callsFound(call ? [call] : []) };
        }
        if (q.startsWith('con_')) {
          const conversation = await findConversation(deps.db, tenantId, q);
          return { items: conversation ? [conversationFound(conversation)] : [] };
        }
        if (CALL_SID.test(q)) {
          // Indexed on MongoDB; on FerretDB the lookup Twilio's status reports already make.
          const line = await findLineCallByProviderId(deps.db, q);
          const call = line ? await findCall(deps.db, tenantId, line._id) : null;
          return { items: await callsFound(call ? [call] : []) };
        }
        const text = readSearchText(q, workspace.country);
        if (text.kind === 'name') return { items: (await listRecentConversations(deps.db, tenantId, FIND_LIMIT, { name: text.name })).map(conversationFound) };
        // The number's newest calls through their entries, then its conversations by id: its chat
        // threads' and those calls' voice conversations (src/conversations/lists.ts).
        const calls = await listCalls(deps.db, tenantId, { to: text.e164 }, { beforeId: null, limit: FIND_LIMIT });
        const conversations = await conversationsOfNumber(deps.db, tenantId, text.e164, calls.map((c) => c._id), FIND_LIMIT);
        return { items: [...(await callsFound(calls)), ...conversations.map(conversationFound)] };
      },
    }),
  ];
}
