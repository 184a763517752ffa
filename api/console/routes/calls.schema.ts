import { z } from 'zod';
import { calleeScript } from '../../../src/providers/voice/simulatorScript';

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
