import { z } from 'zod';

export const pingResponse = z.object({
  ok: z.literal(true),
  workspace_id: z.string(),
  environment: z.enum(['live', 'test']),
  scopes: z.array(z.string()),
});
