import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { conversationMessagesCollection, findConversation, type ConversationDoc } from '../conversations';
import { findByIds } from '../db/findByIds';
import { inboundProviderMessageId } from '../messaging';
import type { AgentTurn, GatheredAndAsked, GatheredTurn, PendingTrailRow } from './contracts';
import { beginTurn, modelStep, type AgentTurnDeps } from './turns';

/**
 * Gathers a burst of customer messages into one turn inside the turn's first step, instead of
 * with a workflow timer: the dev server fires a sub-second timer about a second late, and the
 * timer cost a workflow task of its own (docs/decisions/agents.md, "Burst, hold and idle").
 *
 * Inbound turns are stored before the workflow is signalled (src/messaging/inbound.ts), so the
 * step reads them: it waits the quiet window, reads the conversation's customer turns the
 * workflow has not taken, and waits again while new ones came, up to the burst's longest. Their
 * signals reach the workflow after the turn and are dropped there as taken. Then the turn's
 * checks and read mark (beginTurn), on the newest message gathered.
 */
export async function gatherTurn(deps: AgentTurnDeps, input: GatherInput): Promise<GatheredTurn> {
  const { conversation: _read, ...gathered } = await gatherAndRead(deps, input);
  return gathered;
}

/** `gatherTurn`, with the conversation as its last read found it (undefined: not read, the burst's longest passed first). */
async function gatherAndRead(deps: AgentTurnDeps, input: GatherInput): Promise<GatheredTurn & { conversation: ConversationDoc | null | undefined }> {
  const { turn } = input;
  const fromId = messageIdFloor(Date.parse(input.since));
  // Every id already read or known, so each pass reads only the ids it has not seen.
  const skip = new Set([...input.taken, ...turn.messageIds]);
  const gathered: { id: string; providerMessageId: string }[] = [];
  const deadline = Date.now() + input.maxMs;
  let conversation: ConversationDoc | null | undefined;
  for (;;) {
    const wait = Math.min(input.quietMs, deadline - Date.now());
    if (wait <= 0) break;
    await sleep(wait);
    conversation = await findConversation(deps.db, turn.tenantId, turn.conversationId);
    const fresh = await customerTurnsSince(deps.db, conversation, fromId, skip);
    if (fresh.length === 0) break;
    gathered.push(...fresh);
  }
  const messageIds = [...turn.messageIds, ...gathered.map((m) => m.id)].sort();
  const newest = gathered.reduce<{ id: string; providerMessageId: string } | null>((a, m) => (a && a.id > m.id ? a : m), null);
  const newestKnown = [...turn.messageIds].sort().at(-1) ?? '';
  const providerMessageId = newest && newest.id > newestKnown ? newest.providerMessageId : turn.providerMessageId;
  const start = await beginTurn(deps, { ...turn, messageIds, providerMessageId });
  return { start, messageIds, providerMessageId, conversation };
}

interface GatherInput {
  turn: AgentTurn;
  /** The oldest message of the burst the workflow knows (ISO): nothing older is gathered. */
  since: string;
  /** Message ids from `since` on that the workflow already took (earlier turns, held messages). */
  taken: string[];
  quietMs: number;
  maxMs: number;
}

/**
 * `gatherTurn`, then, when the turn may be answered, its first model call (`modelStep` 0, its
 * final answer sent too when `reply` is given): one step and one workflow activation fewer a
 * turn. The model call stays a step of its own in effect: a model that fails here is not
 * retried here (the step would wait out the burst again) but answered `said: null`, and the
 * workflow asks through its model step with that step's retries.
 */
export async function gatherTurnAndAsk(
  deps: AgentTurnDeps,
  input: GatherInput & { reply?: { trail: PendingTrailRow[] } },
): Promise<GatheredAndAsked> {
  const { reply, ...gather } = input;
  // The model's history from the gather's last read of the conversation, not a read of its own.
  const { conversation, ...gathered } = await gatherAndRead(deps, gather);
  if (!gathered.start.answer) return { ...gathered, said: null };
  const turn = { ...input.turn, messageIds: gathered.messageIds, providerMessageId: gathered.providerMessageId };
  try {
    const said = await modelStep(deps, { turn, agentId: gathered.start.agentId, step: 0, items: [], ...(reply ? { reply } : {}) }, conversation);
    return { ...gathered, said };
  } catch (err) {
    deps.logger?.warn({ err, conversationId: turn.conversationId }, "the turn's first model call failed in its first step; its model step asks again");
    return { ...gathered, said: null };
  }
}

/** The smallest `msg_` id of a message recorded at `ms` (ids lead with their millisecond, src/conversations/store.ts). */
function messageIdFloor(ms: number): string {
  return `msg_${ms.toString(16).padStart(12, '0')}`;
}

/** The conversation's customer turns from `fromId` on that are not in `skip` (every id read is added to it). */
async function customerTurnsSince(db: Db, conversation: ConversationDoc | null, fromId: string, skip: Set<string>): Promise<{ id: string; providerMessageId: string }[]> {
  const candidates = (conversation?.recent_message_ids ?? []).filter((id) => id >= fromId && !skip.has(id));
  if (candidates.length === 0) return [];
  for (const id of candidates) skip.add(id);
  const docs = await findByIds(conversationMessagesCollection(db), candidates, { projection: { role: 1, kind: 1, dedupe_key: 1 } });
  return docs.flatMap((m) => {
    const providerMessageId = m.kind === 'turn' && m.role === 'user' ? inboundProviderMessageId(m.dedupe_key) : null;
    return providerMessageId ? [{ id: m._id, providerMessageId }] : [];
  });
}
