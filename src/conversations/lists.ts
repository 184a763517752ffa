import type { Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { entriesComplete, entryRecordId, readThroughEntries } from '../db/keyedEntries';
import {
  RECENT_CONVERSATION_ENTRIES,
  TRANSCRIPT_ENTRIES,
  conversationEntriesCollection,
  isCurrentRecentKey,
  recentList,
  recentPosition,
  type RecentEntryDoc,
} from './conversationEntries';
import { NAME_ENTRIES, NAME_SORT_MAX, conversationIdsNamed, conversationIdsOfNumber, nameHolds, namesHold, pageOfNamed } from './nameEntries';
import {
  conversationIdFor,
  conversationMessagesCollection,
  conversationTurns,
  conversationsCollection,
  phoneDigits,
  recentConversations,
  type ConversationDoc,
  type ConversationMessageDoc,
  type ConversationSearch,
} from './store';

/**
 * The conversation lists the API and the console page through, read through their keyed
 * entries (src/conversations/conversationEntries.ts) once those are complete, else (an
 * upgrade's backfill still running) with the store's queries, which answer the same.
 */

/**
 * The workspace's most recently active conversations, `updated_at` then `_id` descending,
 * after `after`. The recent entries serve the list and its agent filter (checked on each
 * conversation read); a search by name or number reads the customer entries
 * (src/conversations/nameEntries.ts).
 */
export async function listRecentConversations(
  db: Db,
  tenantId: string,
  limit: number,
  search: ConversationSearch = {},
  after: { updatedAt: Date; id: string } | null = null,
): Promise<ConversationDoc[]> {
  if (!(await entriesComplete(db, RECENT_CONVERSATION_ENTRIES))) return recentConversations(db, tenantId, limit, search, after);
  const { name, phone } = search;
  let admit: ((key: string, entry: RecentEntryDoc) => boolean | Promise<boolean>) | undefined;
  const keep = (c: ConversationDoc) =>
    c.tenant_id === tenantId && (!search.agentId || c.agent_id === search.agentId) && (!name || nameHolds(c, name)) && (!phone || c.customer?.phone === phone);
  if (phone) {
    if (!(await entriesComplete(db, NAME_ENTRIES))) return recentConversations(db, tenantId, limit, search, after);
    // A number's few conversations sorted by time; more: the recent list walked, a record read only for a match.
    const ofNumber = await conversationIdsOfNumber(db, tenantId, phone);
    if (ofNumber && ofNumber.size <= NAME_SORT_MAX) return pageOfNamed(db, ofNumber, limit, after, keep);
    if (ofNumber) admit = (key) => ofNumber.has(entryRecordId(key));
  } else if (name) {
    if (!(await entriesComplete(db, NAME_ENTRIES))) return recentConversations(db, tenantId, limit, search, after);
    // A rare name: its few matches sorted by time. Commoner: the recent list's entries walked newest first, the names
    // they hold checked, a record read only for a match (an entry is a small document, a conversation a large one). An
    // entry written before the names were kept is checked against the name's matches (read once, when first needed:
    // up to NAME_MATCHES_MAX entries), or read when there are more.
    const few = await conversationIdsNamed(db, tenantId, name, NAME_SORT_MAX);
    if (few) return pageOfNamed(db, few, limit, after, keep);
    let named: Promise<Set<string> | null> | null = null;
    admit = async (key, entry) => {
      if (Array.isArray(entry.names)) return namesHold(entry.names, name);
      const matches = await (named ??= conversationIdsNamed(db, tenantId, name));
      return matches === null || matches.has(entryRecordId(key));
    };
  }
  return readThroughEntries({
    entries: conversationEntriesCollection(db),
    prefix: recentList(tenantId),
    order: -1,
    from: after ? recentPosition(after.updatedAt, after.id) : null,
    limit,
    records: conversationsCollection(db),
    keep: (c, key) => isCurrentRecentKey(key, c) && keep(c),
    ...(admit ? { admit, entryFields: ['names'] } : {}),
  });
}

/** A conversation's first `limit` turns after message `afterId`, oldest first, every kind (trail rows too). */
export async function transcriptTurns(db: Db, conversation: Pick<ConversationDoc, '_id' | 'tenant_id'>, limit: number, afterId: string | null = null): Promise<ConversationMessageDoc[]> {
  if (!(await entriesComplete(db, TRANSCRIPT_ENTRIES))) {
    if (afterId === null) return conversationTurns(db, conversation.tenant_id, conversation._id, limit);
    return conversationMessagesCollection(db)
      .find({ tenant_id: conversation.tenant_id, conversation_id: conversation._id, _id: { $gt: afterId } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
  }
  return readThroughEntries({
    entries: conversationEntriesCollection(db),
    prefix: conversation._id,
    order: 1,
    from: afterId,
    limit,
    records: conversationMessagesCollection(db),
    keep: (m) => m.tenant_id === conversation.tenant_id && m.conversation_id === conversation._id,
  });
}

/**
 * A customer's conversations by number, most recently active first, at most `limit`: their
 * chat threads (ids derive from the number's digits) and the voice conversations of `callIds`
 * (ids derive from the call: pass the number's newest calls), read by id. A chat thread keyed
 * on something other than the number is not found this way.
 */
export async function conversationsOfNumber(db: Db, tenantId: string, e164: string, callIds: readonly string[], limit: number): Promise<ConversationDoc[]> {
  const digits = phoneDigits(e164);
  const ids = [conversationIdFor(tenantId, 'whatsapp', digits), conversationIdFor(tenantId, 'web', digits), ...callIds.map((id) => conversationIdFor(tenantId, 'voice', id))];
  const found = await findByIds(conversationsCollection(db), ids);
  return found
    .filter((c) => c.tenant_id === tenantId && c.customer?.phone === e164)
    .sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime() || (a._id < b._id ? 1 : -1))
    .slice(0, limit);
}
