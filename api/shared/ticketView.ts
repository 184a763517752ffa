import type { z } from 'zod';
import type { TicketDoc } from '../../src/tickets/ticketStore';
import { formatTimestamp } from '../format';
import type { ticketRecord } from './tickets.schema';

/** The contract's Ticket record; triage, escalation and bookkeeping stay inside. */
export function ticketView(t: TicketDoc): z.infer<typeof ticketRecord> {
  return {
    ticket_id: t._id,
    public_ref: t.public_ref,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    category: t.category,
    tags: t.tags,
    requester: {
      name: t.requester.name,
      email: t.requester.email,
      phone: t.requester.phone,
      external_id: t.requester.external_id,
    },
    source: { channel: t.source.channel, thread_id: t.source.thread_id, message_id: t.source.message_id },
    assignee_id: t.assignee_id,
    assignee_name: t.assignee_name,
    version: t.version,
    message_count: t.message_count,
    sla_due_at: formatTimestamp(t.sla_due_at),
    created_at: formatTimestamp(t.created_at),
    updated_at: formatTimestamp(t.updated_at),
  };
}
