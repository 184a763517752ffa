import type { Db } from 'mongodb';
import { BULK_WRITE_MAX } from '../db/bulkWrite';
import { findByIds } from '../db/findByIds';
import { insertIfAbsent, insertManyIfAbsent } from '../db/insertIfAbsent';
import { withLease } from '../db/leaseLock';
import { eventIdFor, eventsCollection, type EventInput, type EventPublisher } from '../events';
import { writeNameEntries } from './nameEntries';
import { conversationEntriesCollection, movingRecentEntry, recentKey, writeRecentEntries, writeTranscriptEntries } from './conversationEntries';
import {
  RECENT_MESSAGE_IDS,
  conversationIdFor,
  conversationMessagesCollection,
  conversationsCollection,
  phoneDigits,
  previewOf,
  storedOrderMessageId,
  type ConversationChannel,
  type ConversationDoc,
  type ConversationMessageDoc,
  type Ctwa,
  type Customer,
  type TurnKind,
  type TurnRole,
} from './store';

export interface ConversationDeps {
  db: Db;
  events: EventPublisher;
}

export interface RecordTurnInput {
  tenantId: string;
  channel: ConversationChannel;
  customer: Customer;
  /** Which thread of the channel; defaults to the customer's phone digits. */
  threadKey?: string;
  /** Set on the conversation when it has no agent yet. */
  agentId?: string | null;
  role: TurnRole;
  /** Who on the team wrote a `human` turn, by the name they gave. */
  author?: string | null;
  text: string | null;
  kind?: TurnKind;
  /** When the turn happened (the message id is time-ordered on it). */
  at: Date;
  /**
   * When the turn reached this service (default: now), which orders turns of one `at` in the
   * message id: two WhatsApp messages stamped the same second keep their arrival order. A send
   * passes its `sent_at`, so every recorder of it claims the same id.
   */
  arrivedAt?: Date;
  /** Unique per turn within the workspace, e.g. `wa-in:<provider message id>`. */
  dedupeKey: string;
  /** Written once, from the first ad referral the conversation sees. */
  acquisition?: { ctwa: Ctwa } | null;
}

export interface RecordTurnResult {
  conversationId: string;
  messageId: string;
  /** True when this call created the conversation. */
  conversationCreated: boolean;
  /** True when the turn had been recorded before (a retry); nothing changed. */
  duplicate: boolean;
}

function threadKeyOf(input: Pick<RecordTurnInput, 'threadKey' | 'customer'>): string {
  if (input.threadKey) return input.threadKey;
  const digits = input.customer.phone ? phoneDigits(input.customer.phone) : '';
  if (!digits) throw new Error('recordTurn needs a threadKey or a customer phone');
  return digits;
}

export interface TurnKeyDoc {
  /** `<tenant>|<dedupe key>`. */
  _id: string;
  message_id: string;
}

export const turnKeysCollection = (db: Db) => db.collection<TurnKeyDoc>('conversation_turn_keys');
const turnKeyId = (tenantId: string, dedupeKey: string) => `${tenantId}|${dedupeKey}`;

/**
 * The message id a dedupe key got the first time it was recorded. A redelivered message
 * (a webhook retried, a console injection repeated) may come with another time, and the
 * time and when it was stored are part of the id; the claim keeps one id per key whatever they are.
 */
async function claimMessageId(db: Db, tenantId: string, dedupeKey: string, candidate: string): Promise<string> {
  const keys = turnKeysCollection(db);
  const _id = turnKeyId(tenantId, dedupeKey);
  if (await insertIfAbsent(keys, { _id, message_id: candidate })) return candidate;
  const existing = await keys.findOne({ _id });
  if (!existing) throw new Error(`turn key ${_id} vanished after a duplicate insert`);
  return existing.message_id;
}

/** Another turn holds the id this turn's key claimed: the claim is given up, so a retry claims a fresh id. */
export class MessageIdTaken extends Error {
  constructor(messageId: string) {
    super(`message id ${messageId} is another turn's; the turn's claim was released for a retry`);
    this.name = 'MessageIdTaken';
  }
}

/**
 * A message insert that found its id taken: by this very turn (a retry, or a recorder racing on
 * the same key), which is fine, or by another turn whose id happens to match (the id's key hash
 * is 24 bits: two turns of one millisecond arriving in one millisecond may share it). The
 * latter releases this key's claim and throws, so the retry its caller makes (a webhook
 * redelivered, an activity retried) claims a fresh id instead of losing the turn.
 */
async function refuseAnotherTurnsId(db: Db, message: ConversationMessageDoc): Promise<void> {
  const stored = await conversationMessagesCollection(db).findOne({ _id: message._id }, { projection: { tenant_id: 1, dedupe_key: 1 } });
  if (!stored || (stored.tenant_id === message.tenant_id && stored.dedupe_key === message.dedupe_key)) return;
  await turnKeysCollection(db).deleteOne({ _id: turnKeyId(message.tenant_id, message.dedupe_key), message_id: message._id });
  throw new MessageIdTaken(message._id);
}

const startedDedupeKey = (conversation: ConversationDoc) => `conversation.started:${conversation._id}`;

/** Stores and dispatches `conversation.started` (idempotent: its dedupe key is the conversation's). */
export async function publishStarted(deps: ConversationDeps, conversation: ConversationDoc): Promise<void> {
  await deps.events.publish(startedEvent(conversation));
}

/** The `conversation.started` event of a conversation (a group of them goes through `publishEach`). */
export function startedEvent(conversation: ConversationDoc): EventInput {
  return {
    tenantId: conversation.tenant_id,
    type: 'conversation.started',
    dedupeKey: startedDedupeKey(conversation),
    createdAt: conversation.created_at,
    data: {
      conversation_id: conversation._id,
      channel: conversation.channel,
      agent_id: conversation.agent_id,
      customer: conversation.customer,
      started_at: conversation.created_at.toISOString(),
    },
  };
}

/** Emits `conversation.started` once per conversation, retrying it if an earlier emitter died. */
export async function announce(deps: ConversationDeps, conversation: ConversationDoc): Promise<void> {
  if (conversation.started_event) return;
  await publishStarted(deps, conversation);
  await conversationsCollection(deps.db).updateOne({ _id: conversation._id }, { $set: { started_event: true } });
}

interface NewConversationInput {
  tenantId: string;
  channel: ConversationChannel;
  threadKey: string;
  customer: Customer;
  agentId?: string | null;
  at: Date;
}

/** A thread's conversation as it is before any turn. */
function emptyConversation(input: NewConversationInput): ConversationDoc {
  return {
    _id: conversationIdFor(input.tenantId, input.channel, input.threadKey),
    tenant_id: input.tenantId,
    channel: input.channel,
    thread_key: input.threadKey,
    agent_id: input.agentId ?? null,
    status: 'open',
    customer: input.customer,
    message_count: 0,
    preview: null,
    last_turn_at: null,
    acquisition: null,
    recent_message_ids: [],
    started_event: false,
    created_at: input.at,
    updated_at: input.at,
  };
}

/** The conversation of a thread, created (and announced) on first use. */
export async function ensureConversation(
  deps: ConversationDeps,
  input: NewConversationInput,
): Promise<{ conversation: ConversationDoc; created: boolean }> {
  const conversations = conversationsCollection(deps.db);
  const fresh = emptyConversation(input);
  await writeRecentEntries(deps.db, [fresh]);
  const created = await insertIfAbsent(conversations, fresh);
  const conversation = created ? fresh : await conversations.findOne({ _id: fresh._id, tenant_id: input.tenantId });
  if (!conversation) throw new Error(`conversation ${fresh._id} belongs to another workspace`);
  // The conversation was there: the entry written for it is not its place unless its time is.
  if (!created && conversation.updated_at.getTime() !== fresh.updated_at.getTime()) await conversationEntriesCollection(deps.db).deleteOne({ _id: recentKey(fresh) });
  await announce(deps, conversation);
  return { conversation, created };
}

/** What counting one turn changes on a conversation that has not counted it yet. */
function turnChange(current: ConversationDoc, input: RecordTurnInput, kind: TurnKind, messageId: string): Partial<ConversationDoc> {
  const change: Partial<ConversationDoc> = {
    recent_message_ids: [...current.recent_message_ids, messageId].slice(-RECENT_MESSAGE_IDS),
    updated_at: input.at > current.updated_at ? input.at : current.updated_at,
  };
  if (kind === 'turn') {
    change.message_count = current.message_count + 1;
    if (current.last_turn_at === null || input.at >= current.last_turn_at) {
      change.preview = previewOf(input.text);
      change.last_turn_at = input.at;
    }
    const lastCustomer = current.last_customer_turn;
    if (input.role === 'user' && (!lastCustomer || input.at >= lastCustomer.at)) change.last_customer_turn = { text: previewOf(input.text) ?? '', at: input.at };
  }
  if (current.agent_id === null && input.agentId) change.agent_id = input.agentId;
  const missing = Object.entries(input.customer).filter(([key, value]) => value && !(key in current.customer));
  if (missing.length > 0) change.customer = { ...current.customer, ...Object.fromEntries(missing) };
  if (current.acquisition === null && input.acquisition) change.acquisition = input.acquisition;
  return change;
}

/**
 * Whether `conversation.started` is in the event store. A conversation created by a turn's
 * insert leaves `started_event` false (see recordTurn), so the turns after it ask here
 * before publishing again; a stored event that is not dispatched yet is the sweeper's.
 */
async function startedEventStored(db: Db, conversation: ConversationDoc): Promise<boolean> {
  const id = eventIdFor(conversation.tenant_id, startedDedupeKey(conversation));
  return (await eventsCollection(db).findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
}

/** The turn key, transcript message and conversation a turn writes when it is its thread's first and its key is new. */
export interface FirstTurnDocuments {
  turnKey: TurnKeyDoc;
  message: ConversationMessageDoc;
  conversation: ConversationDoc;
}

/**
 * What `recordTurn` inserts for a turn whose dedupe key is new and whose thread has no
 * conversation yet: a group of such turns may be inserted in bulk (src/messaging/
 * acceptedSendRecords.ts) and each loser of an insert recorded with `recordTurn` after, which
 * then finds the same ids.
 */
export function firstTurnDocuments(input: RecordTurnInput): FirstTurnDocuments {
  const threadKey = threadKeyOf(input);
  const kind = input.kind ?? 'turn';
  const empty = emptyConversation({ ...input, threadKey });
  const messageId = storedOrderMessageId(input.tenantId, input.dedupeKey, input.at, input.arrivedAt ?? new Date());
  return {
    turnKey: { _id: turnKeyId(input.tenantId, input.dedupeKey), message_id: messageId },
    message: {
      _id: messageId,
      tenant_id: input.tenantId,
      conversation_id: empty._id,
      role: input.role,
      ...(input.author ? { author_name: input.author } : {}),
      text: input.text,
      kind,
      created_at: input.at,
      dedupe_key: input.dedupeKey,
    },
    conversation: { ...empty, ...turnChange(empty, input, kind, messageId) },
  };
}

/**
 * Records one turn of a conversation (creating the conversation on first use) and updates
 * the conversation's count, preview and `updated_at`. Safe to retry: a dedupe key gets one
 * message id, ever, and the conversation remembers which messages it counted.
 *
 * The message id is claimed and the message stored first (the conversation id derives from
 * the thread, so neither needs the conversation), so a counted turn is always in the
 * transcript. The first turn of a thread then creates the conversation with itself already
 * counted: whoever wins that insert is the only writer so far and needs no lease. Every
 * other turn changes the conversation under its lease, because FerretDB loses concurrent
 * updates to one document (src/db/leaseLock.ts).
 *
 * `conversation.started` is published after the creating insert (never before: a webhook
 * receiver may read the conversation at once, and a losing creator's event would describe a
 * conversation that is not the stored one). The creator never updates the document to mark
 * it published, as that update would race the turns counted under the lease: the next turn
 * does it under the lease, after checking the event store and publishing if the creator died
 * in between.
 */
export async function recordTurn(deps: ConversationDeps, input: RecordTurnInput): Promise<RecordTurnResult> {
  const kind = input.kind ?? 'turn';
  const first = firstTurnDocuments(input);
  const conversationId = first.conversation._id;
  const messageId = await claimMessageId(deps.db, input.tenantId, input.dedupeKey, first.turnKey.message_id);
  const message = messageId === first.message._id ? first.message : { ...first.message, _id: messageId };
  await writeTranscriptEntries(deps.db, [message]);
  if (!(await insertIfAbsent(conversationMessagesCollection(deps.db), message))) await refuseAnotherTurnsId(deps.db, message);

  const conversations = conversationsCollection(deps.db);
  const created: ConversationDoc = messageId === first.message._id ? first.conversation : { ...first.conversation, ...turnChange(emptyConversation({ ...input, threadKey: first.conversation.thread_key }), input, kind, messageId) };
  await writeRecentEntries(deps.db, [created]);
  if (await insertIfAbsent(conversations, created)) {
    await publishStarted(deps, created);
    return { conversationId, messageId, conversationCreated: true, duplicate: false };
  }

  // One read, under the lease (a read before it too was a command more an inbound message).
  const duplicate = await withLease(deps.db, `conversation:${conversationId}`, async () => {
    const current = await conversations.findOne({ _id: conversationId });
    if (!current) throw new Error(`conversation ${conversationId} vanished`);
    if (current.tenant_id !== input.tenantId) throw new Error(`conversation ${conversationId} belongs to another workspace`);
    if (!current.started_event && !(await startedEventStored(deps.db, current))) await publishStarted(deps, current);
    // The event is stored by now (checked or published above); the flag only goes false to true.
    const started: Partial<ConversationDoc> = current.started_event ? {} : { started_event: true };
    const counted = current.recent_message_ids.includes(messageId);
    const change = counted ? started : { ...turnChange(current, input, kind, messageId), ...started };
    // A name the customer had not given before: findable by it before it is stored.
    if (change.customer) await writeNameEntries(deps.db, [{ _id: conversationId, tenant_id: current.tenant_id, customer: change.customer }]);
    if (Object.keys(change).length > 0) await movingRecentEntry(deps.db, current, { ...current, ...change }, () => conversations.updateOne({ _id: conversationId }, { $set: change }), created);
    // The entry written for the insert is not the conversation's place when it is already past this turn's time (`updated_at` never goes back).
    if (current.updated_at > created.updated_at) await conversationEntriesCollection(deps.db).deleteOne({ _id: recentKey(created) });
    return counted;
  });
  return { conversationId, messageId, conversationCreated: false, duplicate };
}

/**
 * Records several turns of one conversation that exists already (a chat agent's trail rows
 * and its reply): the turn keys, transcript entries and messages each as one `insertMany`, and
 * the conversation changed once under its lease, in the given order; about nine commands for
 * the group where `recordTurn` takes about twelve a turn. The documents are `recordTurn`'s
 * and so is the order of the writes (a counted turn is always in the transcript), so a
 * retry, of either, finds the same ids and counts nothing twice. A conversation not there
 * yet (or another workspace's) is left to `recordTurn`, turn by turn.
 */
export async function recordTurnsOfConversation(deps: ConversationDeps, inputs: readonly RecordTurnInput[]): Promise<RecordTurnResult[]> {
  if (inputs.length === 0) return [];
  if (inputs.length > BULK_WRITE_MAX) {
    // Each insertMany stays under the bulk limit: larger groups go a limit's worth at a time, in order.
    const recorded: RecordTurnResult[] = [];
    for (let start = 0; start < inputs.length; start += BULK_WRITE_MAX) recorded.push(...(await recordTurnsOfConversation(deps, inputs.slice(start, start + BULK_WRITE_MAX))));
    return recorded;
  }
  const firsts = inputs.map(firstTurnDocuments);
  const conversationId = firsts[0]!.conversation._id;
  const tenantId = inputs[0]!.tenantId;
  if (firsts.some((f) => f.conversation._id !== conversationId)) throw new Error('recordTurnsOfConversation records turns of one conversation');

  const keys = turnKeysCollection(deps.db);
  const refused = await insertManyIfAbsent(keys, firsts.map((f) => f.turnKey));
  const claimed = refused.size === 0 ? new Map<string, string>() : new Map((await findByIds(keys, [...refused].map((n) => firsts[n]!.turnKey._id))).map((k) => [k._id, k.message_id]));
  const messages = firsts.map((f, n) => {
    // As in claimMessageId: a refused key must be read back, or a retry could claim a second id.
    if (refused.has(n) && !claimed.has(f.turnKey._id)) throw new Error(`turn key ${f.turnKey._id} vanished after a duplicate insert`);
    const messageId = claimed.get(f.turnKey._id) ?? f.turnKey.message_id;
    return messageId === f.message._id ? f.message : { ...f.message, _id: messageId };
  });
  await writeTranscriptEntries(deps.db, messages);
  // As in recordTurn: an id another turn holds (same ms, same arrival, same 24-bit hash) is given up before counting.
  for (const n of await insertManyIfAbsent(conversationMessagesCollection(deps.db), messages)) await refuseAnotherTurnsId(deps.db, messages[n]!);

  const conversations = conversationsCollection(deps.db);
  const counted = await withLease(deps.db, `conversation:${conversationId}`, async () => {
    const current = await conversations.findOne({ _id: conversationId });
    if (!current || current.tenant_id !== tenantId) return null;
    if (!current.started_event && !(await startedEventStored(deps.db, current))) await publishStarted(deps, current);
    const change: Partial<ConversationDoc> = current.started_event ? {} : { started_event: true };
    let next = current;
    const before = messages.map((m) => current.recent_message_ids.includes(m._id));
    inputs.forEach((input, n) => {
      if (before[n]) return;
      const turn = turnChange(next, input, input.kind ?? 'turn', messages[n]!._id);
      Object.assign(change, turn);
      next = { ...next, ...turn };
    });
    if (Object.keys(change).length > 0) await movingRecentEntry(deps.db, current, { ...current, ...change }, () => conversations.updateOne({ _id: conversationId }, { $set: change }));
    return before;
  });
  if (!counted) {
    const recorded: RecordTurnResult[] = [];
    for (const input of inputs) recorded.push(await recordTurn(deps, input));
    return recorded;
  }
  return messages.map((m, n) => ({ conversationId, messageId: m._id, conversationCreated: false, duplicate: counted[n]! }));
}
