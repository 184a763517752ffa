import type { EventPublisher } from '../events';
import type { TicketDoc, TicketVersionDoc } from './ticketStore';

/**
 * `ticket.created` and `ticket.updated` (campaigns-tickets-dues §6). Payloads carry the
 * ticket's state and no requester details: a receiver that needs them reads the ticket.
 * Dedupe keys name the ticket (and the version), so a retried producer stores one event.
 */

function ticketFacts(ticket: TicketDoc): Record<string, unknown> {
  return {
    ticket_id: ticket._id,
    public_ref: ticket.public_ref,
    subject: ticket.subject,
    status: ticket.status,
    priority: ticket.priority,
    channel: ticket.source.channel,
    category: ticket.category,
    tags: ticket.tags,
    assignee_id: ticket.assignee_id,
  };
}

export async function publishTicketCreated(events: EventPublisher, ticket: TicketDoc): Promise<void> {
  await events.publish({
    tenantId: ticket.tenant_id,
    type: 'ticket.created',
    dedupeKey: `ticket.created:${ticket._id}`,
    data: { ...ticketFacts(ticket), sla_due_at: ticket.sla_due_at.toISOString() },
    createdAt: ticket.created_at,
  });
}

/** `changes` names the fields the PATCH changed; `previous_status` is there when status moved. */
export async function publishTicketUpdated(events: EventPublisher, ticket: TicketDoc, claim: TicketVersionDoc): Promise<void> {
  const previous = claim.changes.status?.from;
  await events.publish({
    tenantId: ticket.tenant_id,
    type: 'ticket.updated',
    dedupeKey: `ticket.updated:${ticket._id}:${claim.version}`,
    data: {
      ...ticketFacts(ticket),
      version: claim.version,
      changes: Object.keys(claim.changes).filter((field) => field !== 'escalation'),
      previous_status: typeof previous === 'string' ? previous : null,
      escalation_cleared: claim.changes.escalation ? true : null,
    },
    createdAt: claim.created_at,
  });
}
