import type { Db } from 'mongodb';
import { findByIds, ID_IN_MAX } from '../db/findByIds';
import { backfillEntries, entryRange, entryRecordId, writeEntries } from '../db/keyedEntries';
import { idRange } from '../domain/ids';
import { escapeRegExp } from '../domain/regExp';
import { conversationEntriesCollection } from './conversationEntries';
import { hexOf, keyText, nameKeys, nameList, phoneList } from './nameKeys';
import { conversationsCollection, type ConversationDoc, type Customer } from './store';

/**
 * A search by part of a customer's name (any case) as keyed entries (src/db/keyedEntries.ts),
 * in `conversation_entries`: `<tenant>|name|<suffix>|<conversation id>` for every suffix of the
 * customer's lower-cased name and display name that does not start with a space. Any part of
 * a name is the start of one of its suffixes, so the conversations whose name holds a text are
 * the keys that start with the text: one `_id` range read. A suffix is cut to NAME_KEY_CHARS
 * and written as hex (4 digits per UTF-16 unit, so any script compares byte by byte and the
 * key holds no reserved character); a longer text reads the range of its first NAME_KEY_CHARS
 * and the records decide. Names only ever gain fields (recordTurn adds what a conversation
 * lacks), so entries are only added: with the conversation's recent entry, before the record.
 */

/** The backfill's name (src/db/keyedEntries.ts `entriesComplete`). */
export const NAME_ENTRIES = 'conversation_customer_entries';

/**
 * How many name entries a number search, or a name search meeting recent entries without
 * names (written before they were kept), reads to admit by id: past it, the walk reads records.
 */
export const NAME_MATCHES_MAX = 2 * ID_IN_MAX;

/**
 * How many matches a search sorts by reading them: each is a whole conversation (up to 100
 * message ids), so past this the recent list's small entries are walked instead, newest
 * first, reading only the matches' records (`admit`: the id among the matches, or, for a text
 * too common to gather, the names the entry holds), until the page is full.
 */
export const NAME_SORT_MAX = 100;

/** Before the conversation (or the customer's new name) is written; idempotent. */
export async function writeNameEntries(db: Db, conversations: readonly (Pick<ConversationDoc, '_id' | 'tenant_id'> & { customer?: Customer })[]): Promise<void> {
  await writeEntries(conversationEntriesCollection(db), conversations.flatMap(nameKeys));
}

/** Whether a conversation's name or display name holds `text` (any case): the search the store's query makes. */
export function nameHolds(c: Pick<ConversationDoc, 'customer'>, text: string): boolean {
  return namesHold([c.customer?.name, c.customer?.display_name], text);
}

/** Whether one of these names holds `text` (any case): `nameHolds` on a recent entry's names (src/conversations/conversationEntries.ts). */
export function namesHold(names: readonly unknown[], text: string): boolean {
  const pattern = new RegExp(escapeRegExp(text), 'i');
  return names.some((n) => typeof n === 'string' && pattern.test(n));
}

/**
 * The conversations of the workspace whose name holds `text`, when there are at most `max`
 * (NAME_MATCHES_MAX) entries for it: their ids (not yet checked against the records), or null
 * for a text too common to sort this way.
 */
export function conversationIdsNamed(db: Db, tenantId: string, text: string, max = NAME_MATCHES_MAX): Promise<Set<string> | null> {
  const start = `${nameList(tenantId)}|${hexOf(keyText(text.trim()))}`;
  // Past every key that starts with `start`: its next characters are hex digits or the separator, all below `~`.
  return idsInRange(db, start, `${start}~`, max);
}

/** The conversations of the workspace with this customer number (E.164), as `conversationIdsNamed`. */
export function conversationIdsOfNumber(db: Db, tenantId: string, e164: string): Promise<Set<string> | null> {
  const range = entryRange(phoneList(tenantId, e164));
  return idsInRange(db, range.$gt, range.$lt);
}

async function idsInRange(db: Db, start: string, end: string, max = NAME_MATCHES_MAX): Promise<Set<string> | null> {
  const ids = new Set<string>();
  let after = start;
  let read = 0;
  for (;;) {
    const batch = Math.min(ID_IN_MAX, max + 1 - read);
    const keys = (await conversationEntriesCollection(db).find({ _id: { $gt: after, $lt: end } }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(batch).toArray()).map((e) => e._id);
    for (const key of keys) ids.add(entryRecordId(key));
    read += keys.length;
    if (read > max) return null;
    if (keys.length < batch) return ids;
    after = keys[keys.length - 1]!;
  }
}

/**
 * The first `limit` of the named conversations after `after`, most recently active first
 * (`updated_at`, then `_id`, descending): the candidates' times read by `$in`, sorted here, the
 * page's conversations read whole. `keep` checks the record (workspace, name, other filters).
 */
export async function pageOfNamed(
  db: Db,
  ids: ReadonlySet<string>,
  limit: number,
  after: { updatedAt: Date; id: string } | null,
  keep: (c: ConversationDoc) => boolean,
): Promise<ConversationDoc[]> {
  const candidates = await findByIds(conversationsCollection(db), [...ids], { projection: { _id: 1, tenant_id: 1, updated_at: 1, customer: 1, agent_id: 1 } });
  const before = (c: Pick<ConversationDoc, '_id' | 'updated_at'>) =>
    !after || c.updated_at.getTime() < after.updatedAt.getTime() || (c.updated_at.getTime() === after.updatedAt.getTime() && c._id < after.id);
  const page = (candidates as ConversationDoc[])
    .filter((c) => keep(c) && before(c))
    .sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime() || (a._id < b._id ? 1 : -1))
    .slice(0, limit);
  if (page.length === 0) return [];
  const whole = new Map((await findByIds(conversationsCollection(db), page.map((c) => c._id))).map((c) => [c._id, c]));
  // A conversation changed between the two reads keeps its place on this page; it is shown as it is now.
  return page.map((c) => whole.get(c._id)).filter((c): c is ConversationDoc => c !== undefined && keep(c));
}

/** The name entries of conversations written before they existed; the worker runs it at start (src/main/worker.ts). */
export async function backfillNameEntries(db: Db, shouldStop?: () => boolean): Promise<void> {
  await backfillEntries(db, NAME_ENTRIES, conversationsCollection(db), idRange('con'), { _id: 1, tenant_id: 1, customer: 1 }, (batch) => writeNameEntries(db, batch), shouldStop);
}
