import { z } from 'zod';
import { pageQuery } from '../../pagination';

export const agentItem = z.object({
  agent_id: z.string(),
  name: z.string(),
  max_call_minutes: z.number().int(),
  numbers: z.array(z.string()),
  created_at: z.string().nullable(),
});

export const agentsQuery = pageQuery(100, 25);
