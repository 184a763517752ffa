import type { Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { withLease } from '../db/leaseLock';
import type { EventPublisher } from '../events/publisher';
import {
  RECENT_MESSAGE_IDS,
  conversationIdFor,
  conversationMessagesCollection,
  conversationsCollection,
  messageIdFor,
  phoneDigits,
  previewOf,
  type ConversationChannel,
  type ConversationDoc,
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
  text: string | null;
  kind?: TurnKind;
  /** When the turn happened (the message id is time-ordered on it). */
  at: Date;
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

interface TurnKeyDoc {
  /** `<tenant>|<dedupe key>`. */
  _id: string;
  message_id: string;
}

/**
 * The message id a dedupe key got the first time it was recorded. A redelivered message
 * (a webhook retried, a console injection repeated) may come with another time, and the
 * time is part of the id; the claim keeps one id per key whatever the time.
 */
async function claimMessageId(db: Db, tenantId: string, dedupeKey: string, candidate: string): Promise<string> {
  const keys = db.collection<TurnKeyDoc>('conversation_turn_keys');
  const _id = `${tenantId}|${dedupeKey}`;
  if (await insertIfAbsent(keys, { _id, message_id: candidate })) return candidate;
  const existing = await keys.findOne({ _id });
  if (!existing) throw new Error(`turn key ${_id} vanished after a duplicate insert`);
  return existing.message_id;
}

/** Emits `conversation.started` once per conversation, retrying it if an earlier emitter died. */
async function announce(deps: ConversationDeps, conversation: ConversationDoc): Promise<void> {
  if (conversation.started_event) return;
  await deps.events.publish({
    tenantId: conversation.tenant_id,
    type: 'conversation.started',
    dedupeKey: `conversation.started:${conversation._id}`,
    createdAt: conversation.created_at,
    data: {
      conversation_id: conversation._id,
      channel: conversation.channel,
      agent_id: conversation.agent_id,
      customer: conversation.customer,
      started_at: conversation.created_at.toISOString(),
    },
  });
  await conversationsCollection(deps.db).updateOne({ _id: conversation._id }, { $set: { started_event: true } });
}

/** The conversation of a thread, created (and announced) on first use. */
export async function ensureConversation(
  deps: ConversationDeps,
  input: { tenantId: string; channel: ConversationChannel; threadKey: string; customer: Customer; agentId?: string | null; at: Date },
): Promise<{ conversation: ConversationDoc; created: boolean }> {
  const conversations = conversationsCollection(deps.db);
  const id = conversationIdFor(input.tenantId, input.channel, input.threadKey);
  const fresh: ConversationDoc = {
    _id: id,
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
  const created = await insertIfAbsent(conversations, fresh);
  const conversation = created ? fresh : await conversations.findOne({ _id: id, tenant_id: input.tenantId });
  if (!conversation) throw new Error(`conversation ${id} belongs to another workspace`);
  await announce(deps, conversation);
  return { conversation, created };
}

/**
 * Records one turn of a conversation (creating the conversation on first use) and updates
 * the conversation's count, preview and `updated_at`. Safe to retry: a dedupe key gets one
 * message id, ever, and the conversation remembers which messages it counted.
 * Changes to the conversation run under its lease because FerretDB loses concurrent updates
 * to one document (src/db/leaseLock.ts).
 */
export async function recordTurn(deps: ConversationDeps, input: RecordTurnInput): Promise<RecordTurnResult> {
  const threadKey = threadKeyOf(input);
  const { conversation, created } = await ensureConversation(deps, {
    tenantId: input.tenantId,
    channel: input.channel,
    threadKey,
    customer: input.customer,
    agentId: input.agentId,
    at: input.at,
  });
  const kind = input.kind ?? 'turn';
  const messageId = await claimMessageId(deps.db, input.tenantId, input.dedupeKey, messageIdFor(input.tenantId, input.dedupeKey, input.at));
  await insertIfAbsent(conversationMessagesCollection(deps.db), {
    _id: messageId,
    tenant_id: input.tenantId,
    conversation_id: conversation._id,
    role: input.role,
    text: input.text,
    kind,
    created_at: input.at,
    dedupe_key: input.dedupeKey,
  });

  const conversations = conversationsCollection(deps.db);
  const duplicate = await withLease(deps.db, `conversation:${conversation._id}`, async () => {
    const current = await conversations.findOne({ _id: conversation._id });
    if (!current) throw new Error(`conversation ${conversation._id} vanished`);
    if (current.recent_message_ids.includes(messageId)) return true;
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
    }
    if (current.agent_id === null && input.agentId) change.agent_id = input.agentId;
    const missing = Object.entries(input.customer).filter(([key, value]) => value && !(key in current.customer));
    if (missing.length > 0) change.customer = { ...current.customer, ...Object.fromEntries(missing) };
    if (current.acquisition === null && input.acquisition) change.acquisition = input.acquisition;
    await conversations.updateOne({ _id: current._id }, { $set: change });
    return false;
  });
  return { conversationId: conversation._id, messageId, conversationCreated: created, duplicate };
}
