import { z } from 'zod';
import { calleeScript } from '../../../src/providers/voice/simulatorScript';
import { callSchema } from '../../v1/routes/calls.schema';

/** Request shapes of the console's calls routes (validated by the route definition, described in its OpenAPI document). */

export const inboundCallBody = z.object({
  /** The caller's number. */
  from: z.string().regex(/^\+?\d{6,20}$/, 'digits with an optional leading +'),
  /** The workspace number dialled; default its first active number. */
  to_number: z.string().max(20).nullable().default(null),
});

export const calleeScriptBody = calleeScript;

/** A destination is a phone number: digits, with an optional `+` and separators. */
export const destinationParam = z.string().max(32).regex(/\d/, 'the destination needs digits');

/** GET …/calls/{call_id}: the public call plus where it was placed, how often it was read, and its transcript. */
export const consoleCallRecord = callSchema.extend({
  placed_at: z.string().nullable(),
  deployment_id: z.string(),
  readings: z.number().int(),
  transcript: z.array(z.object({ role: z.enum(['user', 'model', 'human']), text: z.string(), at_seconds: z.number() })),
});

export const rereadAnswer = z.object({ call_id: z.string(), reading: z.number().int(), workflow_id: z.string() });

/** A destination's callee script as stored, with its defaults filled in. */
export const calleeScriptRecord = z.object({ destination: z.string(), script: calleeScript });
