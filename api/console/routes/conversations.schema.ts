import { z } from 'zod';

/** Request shapes of the console's conversations routes (validated by the route definition, described in its OpenAPI document). */

export const turnBody = z
  .object({
    role: z.enum(['user', 'model', 'human']),
    text: z.string().max(4096).nullable(),
    kind: z.enum(['turn', 'trail']).default('turn'),
    agent_id: z.string().max(64).optional(),
    /** Repeating a turn id changes nothing. */
    turn_id: z.string().min(1).max(128).optional(),
  })
  .strict();

/** A turn recorded, or the one a repeated `turn_id` recorded first (`duplicate`). */
export const turnRecorded = z.object({ conversation_id: z.string(), message_id: z.string(), duplicate: z.boolean() });
