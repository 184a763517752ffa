import type { z } from 'zod';
import type { ConversationDoc, ConversationMessageDoc } from '../../src/conversations/store';
import { formatTimestamp } from '../format';
import type { conversationItem, transcriptMessage } from './conversations.schema';

/** A conversation and a transcript line as both the public API and the console answer them. */

const CHANNELS = new Set(['web', 'whatsapp', 'voice']);

export function conversationView(doc: ConversationDoc): z.infer<typeof conversationItem> {
  return {
    conversation_id: doc._id,
    channel: CHANNELS.has(doc.channel) ? doc.channel : 'web',
    agent_id: doc.agent_id ?? null,
    status: 'open',
    customer: doc.customer ?? {},
    message_count: doc.message_count ?? 0,
    preview: doc.preview ?? null,
    created_at: formatTimestamp(doc.created_at),
    updated_at: formatTimestamp(doc.updated_at),
    acquisition: doc.acquisition ?? null,
  };
}

export function transcriptView(doc: ConversationMessageDoc): z.infer<typeof transcriptMessage> {
  return { message_id: doc._id, role: doc.role ?? 'user', text: doc.text ?? null, created_at: formatTimestamp(doc.created_at) };
}
