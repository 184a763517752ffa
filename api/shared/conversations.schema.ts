import { z } from 'zod';
import { pageQuery } from '../pagination';

/** Request and response shapes of the conversation routes (api-core §6). */

export const conversationItem = z.object({
  conversation_id: z.string(),
  channel: z.enum(['web', 'whatsapp', 'voice']),
  agent_id: z.string().nullable(),
  status: z.literal('open'),
  customer: z.record(z.string(), z.string()),
  message_count: z.number().int(),
  preview: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  acquisition: z.object({ ctwa: z.record(z.string(), z.string()) }).nullable(),
});

export const transcriptMessage = z.object({
  message_id: z.string(),
  role: z.string(),
  text: z.string().nullable(),
  created_at: z.string().nullable(),
});

export const conversationsQuery = pageQuery(100, 25).extend({ agent_id: z.string().min(1).max(64).optional() });

/** The cursor of the transcript is a message id, as the spec says: readable, and a position only. */
export const messagesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(100),
  cursor: z.string().regex(/^msg_[0-9a-f]{24}$/, 'a message_id from this transcript').optional(),
});

export const conversationParams = z.object({ conversation_id: z.string().min(1).max(64) });
