import { z } from 'zod';
import { TICKET_ID_PATTERN } from '../../src/tickets/ticketIdentity';
import { emailField } from './personFields';
import { TICKET_PRIORITIES, TICKET_STATUSES } from '../../src/tickets/ticketRules';

/** Request and response shapes of the ticket routes (campaigns-tickets-dues §2, §4, §8). */

const requesterField = (max: number) => z.string().max(max).nullable().default(null);

export const createTicketBody = z.object({
  subject: z.string().min(1).max(240),
  description: z.string().min(1).max(8_000),
  priority: z.enum(TICKET_PRIORITIES).default('normal'),
  requester_name: requesterField(120),
  requester_email: emailField(200).nullable().default(null),
  requester_phone: requesterField(32),
  /** Not in the contract's request table; fills `requester.external_id`. Does not count as a requester detail. */
  requester_external_id: requesterField(200),
  tags: z.array(z.string()).max(10).default([]),
});

export const patchTicketBody = z.object({
  expected_version: z.number().int().min(1),
  status: z.enum(TICKET_STATUSES).optional(),
  priority: z.enum(TICKET_PRIORITIES).optional(),
  category: z.string().max(80).nullable().optional(),
  tags: z.array(z.string()).max(20).optional(),
});

export const ticketParams = z.object({ ticket_id: z.string().regex(TICKET_ID_PATTERN, 'a ticket_id: tkt_ and 24 hex digits') });

export const ticketRecord = z.object({
  ticket_id: z.string(),
  public_ref: z.string(),
  subject: z.string(),
  status: z.enum(TICKET_STATUSES),
  priority: z.enum(TICKET_PRIORITIES),
  category: z.string().nullable(),
  tags: z.array(z.string()),
  requester: z.object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    external_id: z.string().nullable(),
  }),
  source: z.object({ channel: z.string(), thread_id: z.string().nullable(), message_id: z.string().nullable() }),
  assignee_id: z.string().nullable(),
  assignee_name: z.string().nullable(),
  version: z.number().int(),
  message_count: z.number().int(),
  sla_due_at: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
