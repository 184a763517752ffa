import type { Collection, Db } from 'mongodb';
import { backfillEntries, entryKey, entryKeyIn, entryParts, movingEntries, timeKey, writeEntries, type EntryDoc } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { nameKeys } from './nameKeys';
import { conversationMessagesCollection, conversationsCollection, type ConversationDoc, type ConversationMessageDoc, type Customer } from './store';

/**
 * Conversations as keyed entries (src/db/keyedEntries.ts), so the recent list and a transcript
 * read what they show on FerretDB:
 * - by recency, `<tenant>|recent|<updated_at, 12 hex ms>|<conversation id>`: the key's order is
 *   the list's (`updated_at`, then `_id`, descending). `updated_at` moves with every turn: the
 *   writer adds the new key before the update and removes the old one after; a key whose time
 *   is not the conversation's `updated_at` (a writer that died in between) is skipped when read.
 * - a transcript, `<conversation id>|<message id>`: message ids are time-ordered, so the key's
 *   order is the transcript's.
 */
export const conversationEntriesCollection = (db: Db): Collection<EntryDoc> => db.collection<EntryDoc>('conversation_entries');

/** The backfills' names (src/db/keyedEntries.ts `entriesComplete`). */
export const RECENT_CONVERSATION_ENTRIES = 'recent_conversation_entries';
export const TRANSCRIPT_ENTRIES = 'transcript_entries';

export const recentList = (tenantId: string): string => entryKey(tenantId, 'recent');

/** Where a conversation is in the recent list; also where a page ending on it continues from (after `recent|`). */
export const recentPosition = (updatedAt: Date, conversationId: string): string => entryKey(timeKey(updatedAt), conversationId);

export const recentKey = (c: Pick<ConversationDoc, '_id' | 'tenant_id' | 'updated_at'>): string => entryKeyIn(recentList(c.tenant_id), timeKey(c.updated_at), c._id);

/** Whether a recent-list key is the conversation's current place (its time is the conversation's `updated_at`). */
export function isCurrentRecentKey(key: string, c: Pick<ConversationDoc, 'updated_at'>): boolean {
  const parts = entryParts(key);
  return parts[parts.length - 2] === timeKey(c.updated_at);
}

export const transcriptKey = (m: Pick<ConversationMessageDoc, '_id' | 'conversation_id'>): string => entryKey(m.conversation_id, m._id);

type RecentKeyed = Pick<ConversationDoc, '_id' | 'tenant_id' | 'updated_at'> & { customer?: Customer };

/** The keys the recent entries' writer writes: the conversation's place in the recent list, then its name search's keys. */
const recentEntryKeys = (c: RecentKeyed): string[] => [recentKey(c), ...nameKeys(c)];

/**
 * Before the conversations are inserted: their place in the recent list and, with a
 * customer's name, the name search's keys (src/conversations/nameEntries.ts), in one insert.
 */
export async function writeRecentEntries(db: Db, conversations: readonly RecentKeyed[]): Promise<void> {
  await writeEntries(conversationEntriesCollection(db), conversations.flatMap(recentEntryKeys));
}

/** Before the messages are inserted. */
export async function writeTranscriptEntries(db: Db, messages: readonly Pick<ConversationMessageDoc, '_id' | 'conversation_id'>[]): Promise<void> {
  await writeEntries(conversationEntriesCollection(db), messages.map(transcriptKey));
}

/** What the retention's walk reads of each turn, so deleting its entry needs no read of its own. */
export const TURN_ENTRY_FIELDS = ['conversation_id'] as const;

/**
 * Deletes turns with their transcript entries (retention), given each turn's conversation: the
 * entries first, so a pass that stops between the two leaves turns without entries, which the
 * next pass deletes, never entries a transcript page would read and skip forever.
 */
export function deleteTurnsWithEntries(db: Db): (ids: string[], turns: Pick<ConversationMessageDoc, '_id' | 'conversation_id'>[]) => Promise<number> {
  const messages = conversationMessagesCollection(db);
  return async (ids, turns) => {
    if (turns.length > 0) await conversationEntriesCollection(db).deleteMany({ _id: { $in: turns.map(transcriptKey) } });
    return (await messages.deleteMany({ _id: { $in: ids } })).deletedCount;
  };
}

/**
 * Moves a conversation in the recent list around an update of its `updated_at`
 * (src/db/keyedEntries.ts `movingEntries`): the new key before `update`, the old one removed
 * after it. Nothing to move when the time stays. The update is under the conversation's lease,
 * so it leaves the conversation as foreseen.
 */
export async function movingRecentEntry(
  db: Db,
  current: RecentKeyed,
  updatedAt: Date,
  update: () => Promise<unknown>,
  /** A key the caller has written already (recordTurn's, before its insert). */
  written: string | null = null,
): Promise<void> {
  const next = { ...current, updated_at: updatedAt };
  await movingEntries({
    entries: conversationEntriesCollection(db),
    keysOf: recentEntryKeys,
    before: current,
    next,
    write: async () => {
      await update();
      return next;
    },
    alreadyWritten: written === null ? [] : [written],
  });
}

/** The entries of conversations and messages written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillConversationEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(db, RECENT_CONVERSATION_ENTRIES, conversationsCollection(db), idRange('con'), { _id: 1, tenant_id: 1, updated_at: 1 }, (batch) => writeRecentEntries(db, batch), shouldStop);
  await backfillEntries(db, TRANSCRIPT_ENTRIES, conversationMessagesCollection(db), idRange('msg'), { _id: 1, conversation_id: 1 }, (batch) => writeTranscriptEntries(db, batch), shouldStop);
}
