import type { Collection, Db } from 'mongodb';
import { backfillEntries, entryKey, entryKeyIn, entryParts, movingEntries, timeKey, writeEntries, writeEntryDocs, type EntryDoc } from '../db/keyedEntries';
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
 *   The entry keeps the customer's names (`names`, RecentEntryDoc), so a search for a common
 *   name walks the list's small entries and reads only the conversations that match.
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

/**
 * A recent-list entry. `names`: the customer's name and display name as stored (the search's
 * own check, `namesHold`, runs on them, so an entry admits exactly the records the search
 * keeps); absent on entries written before it existed, or for a name longer than
 * RECENT_NAME_CHARS: then the walk reads the conversation.
 */
export interface RecentEntryDoc extends EntryDoc {
  names?: string[];
}

/** The longest name a recent entry holds; the entry of a longer one holds none (its record is read). */
export const RECENT_NAME_CHARS = 200;

/** The names a recent entry holds for a conversation, or null for none known (a name too long to keep). */
export function recentNames(c: { customer?: Customer }): string[] | null {
  const names = [...new Set([c.customer?.name, c.customer?.display_name].filter((n): n is string => typeof n === 'string' && n.length > 0))];
  return names.some((n) => n.length > RECENT_NAME_CHARS) ? null : names;
}

/** A conversation's recent-list entry, with its names. */
export function recentEntry(c: RecentKeyed): RecentEntryDoc {
  const names = recentNames(c);
  return names === null ? { _id: recentKey(c) } : { _id: recentKey(c), names };
}

/** The keys the recent entries' writer writes: the conversation's place in the recent list, then its name search's keys. */
const recentEntryKeys = (c: RecentKeyed): string[] => [recentKey(c), ...nameKeys(c)];

/**
 * Before the conversations are inserted: their place in the recent list (with the names) and,
 * with a customer's name, the name search's keys (src/conversations/nameEntries.ts), in one insert.
 */
export async function writeRecentEntries(db: Db, conversations: readonly RecentKeyed[], existing: 'unknown' | 'kept' = 'unknown'): Promise<void> {
  await writeEntryDocs(
    conversationEntriesCollection(db),
    conversations.flatMap((c) => [recentEntry(c), ...nameKeys(c).map((_id) => ({ _id }))]),
    existing,
  );
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
 * Moves a conversation in the recent list around an update of its `updated_at` and customer
 * (src/db/keyedEntries.ts `movingEntries`): the new key, with the names `next` will have,
 * before `update`, the old one removed after it; nothing to move when the time stays. The
 * update is under the conversation's lease, so it leaves the conversation as `next`.
 *
 * The entry that will be the conversation's place may be one written already with other
 * names (the current one, when the time stays; recordTurn's, written before its insert with
 * that turn's customer): before the update it is given the union of those names and
 * `next`'s, so neither the old record nor the new is missed by a search, whenever this
 * stops; after the update, `next`'s alone.
 */
export async function movingRecentEntry(
  db: Db,
  current: RecentKeyed,
  next: RecentKeyed,
  update: () => Promise<unknown>,
  /** The conversation as the caller has written its entry already (recordTurn's, before its insert). */
  written: RecentKeyed | null = null,
): Promise<void> {
  const entries = conversationEntriesCollection(db);
  // The name keys are written by the caller before a name is stored (recordTurn); the move is the recent key's.
  const moved = { ...current, updated_at: next.updated_at };
  const place = recentKey(moved);
  const names = recentNames(next);
  const there = [current, written].find((c) => c !== null && recentKey(c) === place);
  const thereNames = there ? recentNames(there) : names;
  const union = names === null || thereNames === null ? null : [...new Set([...thereNames, ...names])];
  const same = (a: string[] | null, b: string[] | null) => (a === null ? b === null : b !== null && a.length === b.length && a.every((n) => b.includes(n)));
  const fix = (to: string[] | null) => entries.updateOne({ _id: place }, to === null ? { $unset: { names: '' } } : { $set: { names: to } });
  if (there && !same(thereNames, union)) await fix(union);
  await movingEntries({
    entries,
    keysOf: recentEntryKeys,
    before: current,
    next: moved,
    write: async () => {
      await update();
      return moved;
    },
    alreadyWritten: written === null ? [] : [recentKey(written)],
    entryOf: (key) => (key === place ? { ...recentEntry(next), _id: key } : { _id: key }),
  });
  if (there && !same(union, names)) await fix(names);
}
/** The entries of conversations and messages written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillConversationEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(db, RECENT_CONVERSATION_ENTRIES, conversationsCollection(db), idRange('con'), { _id: 1, tenant_id: 1, updated_at: 1, customer: 1 }, (batch) => writeRecentEntries(db, batch, 'kept'), shouldStop);
  await backfillEntries(db, TRANSCRIPT_ENTRIES, conversationMessagesCollection(db), idRange('msg'), { _id: 1, conversation_id: 1 }, (batch) => writeTranscriptEntries(db, batch), shouldStop);
}
