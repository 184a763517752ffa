import { z } from 'zod';
import { e164 } from './numbers.schema';

/** Request shapes of the console's messaging routes (validated by the route definition, described in its OpenAPI document). */

export const createSenderBody = z.object({
  phone: e164,
  display_name: z.string().trim().min(1).max(120),
  is_default: z.boolean().default(false),
});

export const updateSenderBody = z
  .object({
    display_name: z.string().trim().min(1).max(120),
    is_default: z.literal(true),
    connected: z.boolean(),
    /** Deploys a chat agent to the sender (`bot_…`), or `null` to undeploy. */
    agent_id: z.string().min(1).max(64).nullable(),
  })
  .partial()
  .strict();

const header = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string().min(1).max(60) }),
  z.object({ type: z.enum(['image', 'video']), media_url: z.string().url().nullable().default(null) }),
]);

const button = z.discriminatedUnion('type', [
  z.object({ type: z.literal('url'), text: z.string().min(1).max(25), url: z.string().min(1).max(2000) }),
  z.object({ type: z.literal('quick_reply'), text: z.string().min(1).max(25) }),
]);

export const createTemplateBody = z.object({
  name: z.string().regex(/^[a-z0-9_]{1,120}$/, 'expected lowercase letters, digits and underscores, up to 120'),
  language: z.string().min(2).max(16),
  body: z.string().min(1).max(1024),
  header: header.nullable().default(null),
  buttons: z.array(button).max(10).default([]),
  status: z.enum(['approved', 'pending', 'rejected']).default('approved'),
});

export const updateTemplateBody = z.object({ status: z.enum(['approved', 'pending', 'rejected']) }).strict();
