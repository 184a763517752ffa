import { z } from 'zod';
import { agentVoiceChange, agentVoiceSettings } from '../../../src/calls/agentVoiceRules';

/** Request and response shapes of the console's agents and numbers routes (validated by the route definition, described in its OpenAPI document). */

export const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'expected E.164: + and 7 to 15 digits');

/**
 * A number's team line as sent: a phone number, checked in the handler by the project's one
 * phone rule (src/contacts/contactIdentity.ts `toE164`, read in the workspace's country), or
 * null for none.
 */
const teamLine = z.string().trim().min(1).max(32).nullable();

const agentName = z.string().trim().min(1).max(120);
const maxCallMinutes = z.number().int().min(1).max(120);

export const createAgentBody = z.object({
  name: agentName,
  max_call_minutes: maxCallMinutes.default(10),
  voice: agentVoiceSettings.optional(),
});

/** Every key optional; in `voice`, a field set to null goes back to its default. */
export const updateAgentBody = z.object({ name: agentName, max_call_minutes: maxCallMinutes, voice: agentVoiceChange }).partial().strict();

export const createNumberBody = z.object({
  number: e164,
  agent_id: z.string().max(64).nullable().default(null),
  recording: z.boolean().default(false),
  team_line: teamLine.default(null),
});

export const updateNumberBody = z
  .object({ agent_id: z.string().max(64).nullable(), active: z.boolean(), recording: z.boolean(), team_line: teamLine })
  .partial()
  .strict();

/** The path parameter of one number (with or without `+`), below its workspace's. */
export const numberParam = z.string().max(20);

/** What an agent's voice settings answer: every field, the default where none was set. */

