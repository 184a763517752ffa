import { z } from 'zod';
import { ticketParams } from '../../v1/routes/tickets.schema';
import { workspaceParams } from '../deps';

/** Request shapes of the console's tickets routes (validated by the route definition, described in its OpenAPI document). */

const assignee = z.object({ id: z.string().trim().min(1).max(64), name: z.string().trim().min(1).max(120) }).strict();

export const ticketSettingsBody = z
  .object({
    auto_assign: z.boolean(),
    assignment: z.enum(['round_robin', 'first']),
    assignees: z
      .array(assignee)
      .max(100)
      .refine((list) => new Set(list.map((a) => a.id)).size === list.length, 'assignee ids must be unique'),
  })
  .partial()
  .strict();

export const escalationBody = z.object({ open: z.boolean(), reason: z.string().trim().max(400).nullable().default(null) }).strict();

export const assignBody = z.object({ assignee_id: z.string().max(64).nullable() }).strict();

/** The public API's ticket id rule (api/v1/routes/tickets.schema.ts) under the workspace. */
export const consoleTicketParams = workspaceParams(ticketParams.shape);
