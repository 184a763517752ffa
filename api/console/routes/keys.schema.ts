import { z } from 'zod';
import { SCOPES } from '../../../src/domain/scopes';

/** Request shapes of the console's keys routes (validated by the route definition, described in its OpenAPI document). */

export const createKeyBody = z.object({
  scopes: z.array(z.enum(SCOPES)).max(SCOPES.length),
  environment: z.enum(['live', 'test']).optional(),
});
