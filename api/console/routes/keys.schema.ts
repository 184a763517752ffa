import { z } from 'zod';
import { LIMITS } from '../../../src/domain/limits';
import { SCOPES } from '../../../src/domain/scopes';

/** Request shapes of the console's keys routes (validated by the route definition, described in its OpenAPI document). */

/** An empty scope list passes here and is refused by the key store with its own reason (`key_scopes_required`). */
export const createKeyBody = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(LIMITS.keyNameMaxLength)
    .refine((v) => !/\p{Cc}/u.test(v), 'must not hold control characters'),
  scopes: z.array(z.enum(SCOPES)).max(SCOPES.length),
  environment: z.enum(['live', 'test']).optional(),
});
