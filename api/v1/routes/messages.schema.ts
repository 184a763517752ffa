import { z } from 'zod';
import { metadataSchema } from '../../../src/domain/metadata';

/** POST /messages (api-core §4): field rules. Guards that need the workspace run in the handler. */

const value = z.union([z.string(), z.number()]);
/** Positional array, object keyed by placeholder number (or button position), or a bare value. */
const variables = z.union([value, z.array(value), z.record(z.string(), z.union([value, z.array(value)]))]).nullable().optional();

export const templateRequest = z.object({
  name: z.string().min(1).max(120).regex(/^[a-z0-9_]+$/, 'lowercase letters, digits and underscores'),
  language: z.string().max(16).nullable().optional(),
  variables,
  header_variables: variables,
  button_variables: variables,
});

export const sendMessageBody = z.object({
  channel: z.literal('whatsapp').default('whatsapp'),
  to: z.string().min(6).max(20).regex(/^\+?\d+$/, 'digits with an optional leading +'),
  text: z.string().max(4_096).nullable().optional(),
  template: templateRequest.nullable().optional(),
  sender_id: z.string().max(64).nullable().optional(),
  metadata: metadataSchema.nullable().optional(),
});

export type SendMessageBody = z.infer<typeof sendMessageBody>;

export const sendMessageResult = z.object({
  message_id: z.string(),
  channel: z.literal('whatsapp'),
  to: z.string(),
  status: z.literal('sent'),
});
