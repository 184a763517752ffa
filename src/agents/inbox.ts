import type { Collection, Db } from 'mongodb';
import type { IndexSet } from '../db/collections';
import { withLease } from '../db/leaseLock';

/**
 * The console's inbox of conversations handed to a person: one document per workspace, read
 * by `_id` (the one filter FerretDB on SQLite answers from an index), written under the
 * workspace's inbox lease (FerretDB loses concurrent updates of one document). Held
 * conversations stay until handed back; handed-back ones are kept newest first up to
 * RETURNED_KEPT, for the inbox's "all".
 */

/** `waiting` held with no team reply yet; `held` a team member has replied; `returned` back with the agent. */
export type InboxState = 'waiting' | 'held' | 'returned';

export interface InboxEntry {
  conversation_id: string;
  sender_id: string;
  customer_phone: string;
  state: InboxState;
  /** The reason the agent (or the team member who took it) gave for the hand-over. */
  reason: string;
  /** The team member who last acted: took it, replied, handed it back. */
  member_name: string | null;
  handed_over_at: Date;
  handed_back_at: Date | null;
  /** The inbox's order: newest first. */
  updated_at: Date;
}

interface InboxDoc {
  /** The workspace id. */
  _id: string;
  entries: InboxEntry[];
}

/** Handed-back conversations the inbox keeps for "all"; held ones are never dropped. */
export const RETURNED_KEPT = 200;

export const AGENT_INBOX_INDEXES: IndexSet = {};

function inboxes(db: Db): Collection<InboxDoc> {
  return db.collection<InboxDoc>('agent_inboxes');
}

export type InboxFilter = 'waiting' | 'held' | 'all';

/** The workspace's inbox, newest first: `waiting` for a person, every `held` one (waiting included), or `all`. */
export async function inboxEntries(db: Db, tenantId: string, filter: InboxFilter): Promise<InboxEntry[]> {
  const doc = await inboxes(db).findOne({ _id: tenantId });
  const keep = (entry: InboxEntry) => filter === 'all' || (filter === 'waiting' ? entry.state === 'waiting' : entry.state !== 'returned');
  return (doc?.entries ?? []).filter(keep).sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime() || (a.conversation_id < b.conversation_id ? 1 : -1));
}

/** The conversation's entry, or null. */
export async function inboxEntry(db: Db, tenantId: string, conversationId: string): Promise<InboxEntry | null> {
  const doc = await inboxes(db).findOne({ _id: tenantId });
  return doc?.entries.find((entry) => entry.conversation_id === conversationId) ?? null;
}

/**
 * Changes one conversation's entry (`change` answers the new entry from the current one, or
 * null to leave the inbox as it is). Idempotent when `change` is: a retried step sees its own
 * write and changes nothing.
 */
export async function changeInboxEntry(
  db: Db,
  tenantId: string,
  conversationId: string,
  change: (current: InboxEntry | null) => InboxEntry | null,
): Promise<InboxEntry | null> {
  return withLease(db, `agent-inbox:${tenantId}`, async () => {
    const doc = await inboxes(db).findOne({ _id: tenantId });
    const entries = doc?.entries ?? [];
    const current = entries.find((entry) => entry.conversation_id === conversationId) ?? null;
    const next = change(current);
    if (!next) return current;
    const others = entries.filter((entry) => entry.conversation_id !== conversationId);
    const returned = others.filter((entry) => entry.state === 'returned').sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime());
    const kept = [...others.filter((entry) => entry.state !== 'returned'), ...returned.slice(0, RETURNED_KEPT - 1), next];
    await inboxes(db).updateOne({ _id: tenantId }, { $set: { entries: kept } }, { upsert: true });
    return next;
  });
}
