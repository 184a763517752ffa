import { createHash } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import type { IndexSet } from '../db/collections';
import { escapeRegExp } from '../domain/regExp';

/**
 * Conversations and their transcripts (api-core §2 Conversation, Transcript message): the
 * documents, their collections and how their ids are made.
 */

export type ConversationChannel = 'web' | 'whatsapp' | 'voice';
/** `user` the customer, `model` the agent, `human` a team member (or the business's systems). */
export type TurnRole = 'user' | 'model' | 'human';
/** `trail` rows (lookups, tool runs, hold lines) are stored but never shown or counted. */
export type TurnKind = 'turn' | 'trail';

/** Free-form; keys the spec names: name, display_name, phone, email, contact_id. */
export type Customer = Partial<Record<'name' | 'display_name' | 'phone' | 'email' | 'contact_id', string>>;

/** Click-to-WhatsApp ad attribution; each key only when it has a value. */
export type Ctwa = Partial<
  Record<'source_type' | 'source_id' | 'source_url' | 'headline' | 'body' | 'media_type' | 'ctwa_clid' | 'captured_at', string>
>;

export interface ConversationDoc {
  /** `con_` + 24 hex of sha256(tenant, channel, thread key): one conversation per thread. */
  _id: string;
  tenant_id: string;
  channel: ConversationChannel;
  /** What the id derives from with the channel: the customer's phone digits, or a call id. */
  thread_key: string;
  agent_id: string | null;
  status: 'open';
  customer: Customer;
  /** Customer, agent and team turns; trail rows excluded. */
  message_count: number;
  /** First 140 characters of the last real turn. */
  preview: string | null;
  /** When the turn behind `preview` happened, so a late-arriving older turn does not replace it. */
  last_turn_at: Date | null;
  /**
   * The customer's latest turn (first 140 characters) and when: a campaign's report shows it as
   * the person's reply with one `_id` read per page. Absent on conversations whose customer has
   * not written since it was added.
   */
  last_customer_turn?: { text: string; at: Date } | null;
  acquisition: { ctwa: Ctwa } | null;
  /** Ids of the newest messages already counted, so a retried recorder counts nothing twice. */
  recent_message_ids: string[];
  /**
   * True once `conversation.started` is known to be stored (an emitter that died before it
   * retries it). A conversation created by a turn starts false even though its creator
   * publishes right after the insert: the next turn confirms the event under the lease.
   */
  started_event: boolean;
  created_at: Date;
  /** Moves with every message, trail rows included; the list's sort key. */
  updated_at: Date;
}

export interface ConversationMessageDoc {
  /**
   * `msg_` + 12 hex of the turn's millisecond + 12 more: when it arrived and sha256(tenant,
   * dedupe key) (`storedOrderMessageId`), or, for a call's turns, sha256 alone (`messageIdFor`).
   */
  _id: string;
  tenant_id: string;
  conversation_id: string;
  role: TurnRole;
  /** The team member's name on a `human` turn they wrote from the console inbox; absent otherwise. */
  author_name?: string;
  text: string | null;
  kind: TurnKind;
  created_at: Date;
  /** What the recorder deduplicates on, e.g. `wa-in:<provider message id>`, `<call_id>:<turn index>`. */
  dedupe_key: string;
}

/** The conversations' indexes, created at each start by the composition roots (src/main/indexes.ts). */
export const CONVERSATION_INDEXES: IndexSet = {
  conversations: [{ key: { tenant_id: 1, updated_at: -1, _id: -1 }, name: 'tenant_recent' }],
  conversation_messages: [{ key: { conversation_id: 1, _id: 1 }, name: 'conversation_order' }],
};

export function conversationsCollection(db: Db): Collection<ConversationDoc> {
  return db.collection<ConversationDoc>('conversations');
}

/**
 * A conversation of the workspace by id; another workspace's is as missing as an unknown one.
 * Read by `_id` alone and the workspace compared here (the bare `{_id}` filter is the one
 * FerretDB on SQLite answers from its index, as src/tickets/ticketStore.ts `findTicket`).
 */
export async function findConversation(db: Db, tenantId: string, conversationId: string): Promise<ConversationDoc | null> {
  const conversation = await conversationsCollection(db).findOne({ _id: conversationId });
  return conversation?.tenant_id === tenantId ? conversation : null;
}

export function conversationMessagesCollection(db: Db): Collection<ConversationMessageDoc> {
  return db.collection<ConversationMessageDoc>('conversation_messages');
}

/** Which conversations a search keeps: the customer's number (E.164), part of their name (any case), the agent answering. */
export interface ConversationSearch {
  phone?: string;
  name?: string;
  agentId?: string;
}

/**
 * The workspace's most recently active conversations, at most `limit`, after `after` (the
 * last one of the previous page), narrowed by `search`. Most recent is `updated_at`, then
 * `_id`, descending, the order GET /api/v1/conversations pages in. On FerretDB the narrowed
 * read is the same one scan of the workspace's conversations the plain list is (only `_id`
 * equality is indexed there); `limit` bounds what is decoded and sent.
 */
export async function recentConversations(
  db: Db,
  tenantId: string,
  limit: number,
  search: ConversationSearch = {},
  after: { updatedAt: Date; id: string } | null = null,
): Promise<ConversationDoc[]> {
  const filter: Filter<ConversationDoc> = { tenant_id: tenantId };
  if (search.phone) filter['customer.phone'] = search.phone;
  if (search.agentId) filter.agent_id = search.agentId;
  const clauses: Filter<ConversationDoc>[] = [];
  if (search.name) {
    const name = { $regex: escapeRegExp(search.name), $options: 'i' };
    clauses.push({ $or: [{ 'customer.name': name }, { 'customer.display_name': name }] });
  }
  if (after) clauses.push({ $or: [{ updated_at: { $lt: after.updatedAt } }, { updated_at: after.updatedAt, _id: { $lt: after.id } }] });
  if (clauses.length > 0) filter.$and = clauses;
  return conversationsCollection(db).find(filter).sort({ updated_at: -1, _id: -1 }).limit(limit).toArray();
}

/** A conversation's first `limit` turns, oldest first (every kind: notes and trail rows too). */
export async function conversationTurns(db: Db, tenantId: string, conversationId: string, limit: number): Promise<ConversationMessageDoc[]> {
  return conversationMessagesCollection(db)
    .find({ tenant_id: tenantId, conversation_id: conversationId })
    .sort({ _id: 1 })
    .limit(limit)
    .toArray();
}

const hex = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex');

/** The conversation of a thread: a customer's phone on a chat channel, or one voice call. */
export function conversationIdFor(tenantId: string, channel: ConversationChannel, threadKey: string): string {
  return `con_${hex(tenantId, channel, threadKey).slice(0, 24)}`;
}

/**
 * Time-ordered like every `msg_` id (src/domain/ids.ts), but its random half derives from
 * the dedupe key, so recording the same turn at the same instant again gives the same id. A
 * finished call's turns (recordCall.ts), whose times it makes strictly increasing itself.
 */
export function messageIdFor(tenantId: string, dedupeKey: string, at: Date): string {
  return `msg_${at.getTime().toString(16).padStart(12, '0')}${hex(tenantId, dedupeKey).slice(0, 12)}`;
}

/** The largest gap between a turn's time and its arrival that still orders turns of one time (24 bits of ms: about 4.6 hours). */
const ARRIVED_AFTER_MAX_MS = 0xffffff;

/**
 * A turn's message id as `recordTurn` claims it, once per dedupe key: the turn's millisecond
 * (12 hex), then how long after it the turn reached us (6 hex of ms, from 0, capped), then 6 hex
 * of sha256(tenant, dedupe key). Turns of one time, such as two WhatsApp messages stamped the
 * same second, sort in the order they arrived, on any store (a plain `_id` order); the time
 * still comes first. A turn arriving more than ARRIVED_AFTER_MAX_MS late ties with others as
 * late and falls back to the key's order.
 */
export function storedOrderMessageId(tenantId: string, dedupeKey: string, at: Date, arrivedAt: Date): string {
  const after = Math.min(Math.max(arrivedAt.getTime() - at.getTime(), 0), ARRIVED_AFTER_MAX_MS);
  return `msg_${at.getTime().toString(16).padStart(12, '0')}${after.toString(16).padStart(6, '0')}${hex(tenantId, dedupeKey).slice(0, 6)}`;
}

/** How many newest message ids a conversation remembers as counted. */
export const RECENT_MESSAGE_IDS = 100;

export const PREVIEW_LENGTH = 140;

export function previewOf(text: string | null): string | null {
  if (text === null) return null;
  const chars = Array.from(text);
  return chars.length > PREVIEW_LENGTH ? chars.slice(0, PREVIEW_LENGTH).join('') : text;
}

/** Digits only: phone numbers are compared, and threads keyed, on digits. */
export function phoneDigits(phone: string): string {
  return phone.replace(/\D/g, '');
}
