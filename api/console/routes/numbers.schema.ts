import { z } from 'zod';
import { workspaceParams } from '../deps';

/** Request shapes of the console's numbers routes (validated by the route definition, described in its OpenAPI document). */

export const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'expected E.164: + and 7 to 15 digits');

export const createAgentBody = z.object({
  name: z.string().trim().min(1).max(120),
  max_call_minutes: z.number().int().min(1).max(120).default(10),
});

export const createNumberBody = z.object({
  number: e164,
  agent_id: z.string().max(64).nullable().default(null),
  recording: z.boolean().default(false),
});

export const updateNumberBody = z
  .object({ agent_id: z.string().max(64).nullable(), active: z.boolean(), recording: z.boolean() })
  .partial()
  .strict();

export const numberParams = workspaceParams({ number: z.string().max(20) });
