import { z } from 'zod';
import { TICKET_PRIORITIES } from '../../../src/tickets/ticketRules';
import { ticketRecord } from '../../shared/tickets.schema';

/** Request and response shapes of the console's tickets routes (validated by the route definition, described in its OpenAPI document). */

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

export const ticketSettingsRecord = z.object({
  auto_assign: z.boolean(),
  assignment: z.enum(['round_robin', 'first']),
  assignees: z.array(z.object({ assignee_id: z.string(), name: z.string() })),
});

const actor = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('api_key'), key_id: z.string() }),
  z.object({ kind: z.literal('console') }),
  z.object({ kind: z.literal('triage'), provider: z.string() }),
  z.object({ kind: z.literal('agent'), agent_id: z.string() }),
]);

/** The public record plus what only the console sees: triage notes, escalation, links, bookkeeping. */
export const consoleTicketRecord = ticketRecord.extend({
  contact_id: z.string().nullable(),
  triage: z
    .object({
      provider: z.string(),
      suggested_category: z.string().nullable(),
      suggested_priority: z.enum(TICKET_PRIORITIES).nullable(),
      notes: z.string(),
      attached_at: z.string().nullable(),
    })
    .nullable(),
  escalation: z.object({ open: z.boolean(), reason: z.string().nullable(), opened_at: z.string().nullable(), cleared_at: z.string().nullable() }),
  status_changed_at: z.string().nullable(),
  resolved_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  created_by: actor,
  last_changed_by: actor,
});

/** One ticket with its thread and its change history. */
export const consoleTicketDetail = consoleTicketRecord.extend({
  messages: z.array(
    z.object({
      message_id: z.string(),
      kind: z.enum(['customer', 'staff_reply', 'note']),
      author_name: z.string().nullable(),
      text: z.string(),
      delivery_state: z.enum(['held', 'sent', 'delivered', 'withdrawn']).nullable(),
      created_at: z.string().nullable(),
    }),
  ),
  history: z.array(
    z.object({
      version: z.number().int(),
      actor,
      changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
      at: z.string().nullable(),
    }),
  ),
});
