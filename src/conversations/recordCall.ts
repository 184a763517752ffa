import { MongoBulkWriteError } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { writeRecentEntries, writeTranscriptEntries } from './conversationEntries';
import type { ConversationDeps } from './recordTurn';
import { announce, ensureConversation } from './recordTurn';
import {
  RECENT_MESSAGE_IDS,
  conversationIdFor,
  conversationMessagesCollection,
  conversationsCollection,
  messageIdFor,
  previewOf,
  type ConversationDoc,
  type ConversationMessageDoc,
  type Customer,
  type TurnKind,
  type TurnRole,
} from './store';
import { onlyDuplicateKeys } from '../db/duplicateKey';

export interface CallTurn {
  role: TurnRole;
  text: string | null;
  at: Date;
  /** `trail` for hold lines, lookups and tool runs: stored, never shown or counted. */
  kind?: TurnKind;
}

export interface RecordCallInput {
  tenantId: string;
  callId: string;
  agentId: string | null;
  /** The person on the line, e.g. `{phone: '+9198…', name: '…'}`. */
  customer: Customer;
  /** In spoken order. */
  turns: CallTurn[];
}

/**
 * Records a finished voice call as a conversation of its own (channel `voice`, one
 * conversation per call, its id derived from the call id) with the call's transcript.
 *
 * Safe to retry as a whole, as the call workflow's finalisation activity will: the
 * conversation id derives from the call id, each turn's message id from `<call_id>:<index>`
 * and its time, and the conversation's counts are set from the turns, never incremented.
 * Turn times are made strictly increasing so the transcript keeps its spoken order. A call
 * with no turns (never answered) records nothing and answers null.
 */
export async function recordCallConversation(
  deps: ConversationDeps,
  input: RecordCallInput,
): Promise<{ conversationId: string | null; messageCount: number }> {
  if (input.turns.length === 0) return { conversationId: null, messageCount: 0 };
  const threadKey = input.callId;
  const conversationId = conversationIdFor(input.tenantId, 'voice', threadKey);

  let previous = -Infinity;
  const messages: ConversationMessageDoc[] = input.turns.map((turn, index) => {
    const time = Math.max(turn.at.getTime(), previous + 1);
    previous = time;
    const at = new Date(time);
    const dedupeKey = `${input.callId}:${index}`;
    return {
      _id: messageIdFor(input.tenantId, dedupeKey, at),
      tenant_id: input.tenantId,
      conversation_id: conversationId,
      role: turn.role,
      text: turn.text,
      kind: turn.kind ?? 'turn',
      created_at: at,
      dedupe_key: dedupeKey,
    };
  });
  const real = messages.filter((m) => m.kind === 'turn');
  const lastReal = real[real.length - 1];
  const summary: Pick<ConversationDoc, 'message_count' | 'preview' | 'last_turn_at' | 'updated_at' | 'recent_message_ids'> = {
    message_count: real.length,
    preview: lastReal ? previewOf(lastReal.text) : null,
    last_turn_at: lastReal ? lastReal.created_at : null,
    updated_at: messages[messages.length - 1]!.created_at,
    recent_message_ids: messages.slice(-RECENT_MESSAGE_IDS).map((m) => m._id),
  };

  const collection = conversationMessagesCollection(deps.db);
  await writeTranscriptEntries(deps.db, messages);
  try {
    await collection.insertMany(messages, { ordered: false });
  } catch (err) {
    const onlyDuplicates = err instanceof MongoBulkWriteError && onlyDuplicateKeys([err.writeErrors].flat().map((e) => e.code));
    if (!onlyDuplicates) throw err;
  }

  const conversations = conversationsCollection(deps.db);
  const createdAt = messages[0]!.created_at;
  // Set from the turns, so a retry writes the same key; a conversation moved past it by a later turn skips it when read.
  await writeRecentEntries(deps.db, [{ _id: conversationId, tenant_id: input.tenantId, updated_at: summary.updated_at, customer: input.customer }]);
  const conversation: ConversationDoc = {
    _id: conversationId,
    tenant_id: input.tenantId,
    channel: 'voice',
    thread_key: threadKey,
    agent_id: input.agentId,
    status: 'open',
    customer: input.customer,
    acquisition: null,
    started_event: false,
    created_at: createdAt,
    ...summary,
  };
  if (await insertIfAbsent(conversations, conversation)) {
    // This try created it: it is known as written, and only its `conversation.started` is owed
    // (ensureConversation would write and remove an entry and read back what was just inserted).
    await announce(deps, conversation);
    return { conversationId, messageCount: real.length };
  }
  await conversations.updateOne({ _id: conversationId, tenant_id: input.tenantId }, { $set: summary });
  // Emits conversation.started when no earlier attempt managed to.
  await ensureConversation(deps, {
    tenantId: input.tenantId,
    channel: 'voice',
    threadKey,
    customer: input.customer,
    agentId: input.agentId,
    at: createdAt,
  });
  return { conversationId, messageCount: real.length };
}
