import { z } from 'zod';
import { simulatorScriptSchema } from '../../../src/providers/whatsapp/simulatorScripts';

/** Request and response shapes of the console's whatsapp routes (validated by the route definition, described in its OpenAPI document). */

export const phone = z.string().regex(/^\+?\d{6,19}$/, 'expected + and digits');

const referral = z
  .object({
    source_type: z.string().max(40),
    source_id: z.string().max(200),
    source_url: z.string().max(2000),
    headline: z.string().max(500),
    body: z.string().max(2000),
    media_type: z.enum(['image', 'video']),
    ctwa_clid: z.string().max(500),
    image_url: z.string().max(2000),
    video_url: z.string().max(2000),
    thumbnail_url: z.string().max(2000),
  })
  .partial()
  .strict();

export const inboundBody = z
  .object({
    from: phone,
    text: z.string().min(1).max(4096),
    name: z.string().trim().min(1).max(120).optional(),
    sender_id: z.string().max(64).optional(),
    /** The provider's id for the message; a repeat with the same id changes nothing. */
    message_id: z.string().min(1).max(128).optional(),
    /** When the customer sent it (default now), e.g. to open a window that has since closed. */
    received_at: z.iso.datetime({ offset: true }).optional(),
    referral: referral.optional(),
  })
  .strict();

export const echoBody = z
  .object({
    to: phone,
    text: z.string().min(1).max(4096).optional(),
    action: z.enum(['sent', 'edited', 'deleted']).default('sent'),
    sender_id: z.string().max(64).optional(),
    message_id: z.string().min(1).max(128).optional(),
  })
  .strict();

/** A recipient's simulator script as stored, every key filled in. */
export const whatsappScriptRecord = simulatorScriptSchema.extend({ recipient: z.string(), updated_at: z.string().nullable() });

export const scriptDeleted = z.object({ recipient: z.string(), deleted: z.boolean() });

export const inboundInjected = z.object({
  message_id: z.string(),
  conversation_id: z.string(),
  transcript_message_id: z.string(),
  sender_id: z.string(),
  opted_out: z.boolean(),
});

/** `conversation_id` null: the echo matched no conversation (an edit or delete of a message never seen). */
export const echoInjected = z.object({ message_id: z.string(), conversation_id: z.string().nullable(), action: z.enum(['sent', 'edited', 'deleted']) });
