import { z } from 'zod';
import { BUSINESS_TOOL_LIMITS as L } from '../../../src/businessTools';
import { itemsOf } from '../views';
import { webhookUrl } from './webhooks.schema';

/** Request and response shapes of the console's business tools (docs/agents.md "Business tools"). */

export const toolNameParam = z.string().regex(L.namePattern);

export const createToolBody = z.object({
  /** What the model calls it: letters, digits, `_` and `-`, up to 64. */
  name: toolNameParam,
  /** What the tool does and when to use it, for the model. */
  description: z.string().trim().min(1).max(L.descriptionMaxChars),
  /** A JSON Schema of type object (its properties are the arguments the tool is POSTed). */
  parameters: z.record(z.string(), z.unknown()),
  /** Where it is POSTed; the same URL rules as a webhook's. */
  url: webhookUrl,
  timeout_ms: z.number().int().min(L.minTimeoutMs).max(L.maxTimeoutMs).default(L.defaultTimeoutMs),
});

export const toolRecord = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  url: z.string(),
  timeout_ms: z.number().int(),
  created_at: z.string().nullable(),
});

/** A new tool, with the secret its calls are signed with: shown this once. */
export const issuedToolRecord = toolRecord.extend({ secret: z.string() });

export const toolList = itemsOf(toolRecord).extend({ limit: z.number().int() });
