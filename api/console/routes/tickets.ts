import { z } from 'zod';
import { updateWorkspaceSettings } from '../../../src/workspaces/workspaceActions';
import { assignTicket, setEscalation } from '../../../src/tickets/consoleTicketActions';
import { ticketSettingsOf, type TicketSettings } from '../../../src/tickets/ticketSettings';
import { findTicket, ticketCollections, ticketThreadAndHistory, type TicketDoc } from '../../../src/tickets/ticketStore';
import { found } from '../../errors';
import { formatTimestamp } from '../../format';
import { ticketParams } from '../../shared/tickets.schema';
import { ticketView } from '../../shared/ticketView';
import type { RouteDef } from '../../route';
import { tenantList, workspaceGroup, type ConsoleDeps } from '../deps';
import { ticketSettingsBody, escalationBody, assignBody, consoleTicketDetail, consoleTicketRecord, ticketSettingsRecord } from './tickets.schema';

const ws = workspaceGroup();

const settingsView = (s: TicketSettings): z.infer<typeof ticketSettingsRecord> => ({
  auto_assign: s.auto_assign,
  assignment: s.assignment,
  assignees: s.assignees.map((a) => ({ assignee_id: a.id, name: a.name })),
});

/** The public record plus what only the console sees: triage notes, escalation, links, bookkeeping. */
const consoleTicketView = (t: TicketDoc): z.infer<typeof consoleTicketRecord> => ({
  ...ticketView(t),
  contact_id: t.contact_id,
  triage: t.triage && { ...t.triage, attached_at: formatTimestamp(t.triage.attached_at) },
  escalation: {
    open: t.escalation.open,
    reason: t.escalation.reason,
    opened_at: formatTimestamp(t.escalation.opened_at),
    cleared_at: formatTimestamp(t.escalation.cleared_at),
  },
  status_changed_at: formatTimestamp(t.status_changed_at),
  resolved_at: formatTimestamp(t.resolved_at),
  closed_at: formatTimestamp(t.closed_at),
  created_by: t.created_by,
  last_changed_by: t.last_changed_by,
});

const TICKET_NOT_FOUND = 'Ticket not found.';
/** `tickets/{ticket_id}…`: a ticket of the workspace, or 404. */
const ticket = ws.record('ticket_id', TICKET_NOT_FOUND, ticketParams.shape.ticket_id);

/** Ticket settings (auto-assignment), the assignee list, and the console-only ticket actions. */
export function ticketRoutes(deps: ConsoleDeps): RouteDef[] {
  const routes: RouteDef[] = [];
  const { tickets } = ticketCollections(deps.db);
  const ticketDeps = { db: deps.db, events: deps.events };

  routes.push(
    ws.get('getTicketSettings', 'ticket-settings', {
      summary: 'Ticket settings: auto-assignment and the assignee list.',
      response: { status: 200, description: 'The settings.', schema: ticketSettingsRecord },
      handler: (ctx, { workspace }) => settingsView(ticketSettingsOf(workspace)),
    }),
  );

  routes.push(
    ws.patch('updateTicketSettings', 'ticket-settings', {
      summary: 'Change any of `auto_assign`, `assignment`, `assignees` (replaces the list).',
      body: ticketSettingsBody,
      response: { status: 200, description: 'The settings.', schema: ticketSettingsRecord },
      handler: async (ctx, { body, tenantId }) => {
        const updated = await updateWorkspaceSettings(deps.db, tenantId, 'ticket_settings', body, deps.now());
        return settingsView(ticketSettingsOf(updated!));
      },
    }),
  );

  routes.push(
    ws.get('listTicketAssignees', 'ticket-assignees', {
      summary: "The workspace's ticket assignees.",
      response: { status: 200, description: '`{items}`.', schema: z.object({ items: ticketSettingsRecord.shape.assignees }) },
      handler: (ctx, { workspace }) => ({ items: settingsView(ticketSettingsOf(workspace)).assignees }),
    }),
  );

  routes.push(tenantList('tickets', 'listConsoleTickets', tickets, consoleTicketView, consoleTicketRecord, { created_at: -1, _id: -1 }));

  routes.push(
    ticket.get('getConsoleTicket', 'tickets/{ticket_id}', {
      summary: 'A ticket with its console-only fields, messages and history.',
      response: { status: 200, description: 'The ticket.', schema: consoleTicketDetail },
      handler: async (ctx, { params: { ticket_id: ticketId }, tenantId }) => {
        const ticket = found(await findTicket(deps.db, tenantId, ticketId), TICKET_NOT_FOUND);
        const [thread, history] = await ticketThreadAndHistory(deps.db, tenantId, ticketId);
        return {
          ...consoleTicketView(ticket),
          messages: thread.map((m) => ({
            message_id: m._id,
            kind: m.kind,
            author_name: m.author_name,
            text: m.text,
            delivery_state: m.delivery_state,
            created_at: formatTimestamp(m.created_at),
          })),
          history: history.map((v) => ({ version: v.version, actor: v.actor, changes: v.changes, at: formatTimestamp(v.created_at) })),
        } satisfies z.infer<typeof consoleTicketDetail>;
      },
    }),
  );

  routes.push(
    ticket.post('setTicketEscalation', 'tickets/{ticket_id}/escalation', {
      summary: 'Open or clear the escalation flag of a ticket.',
      body: escalationBody,
      response: { status: 200, description: 'The ticket.', schema: consoleTicketRecord },
      handler: async (ctx, { params: { ticket_id: ticketId }, body, tenantId }) => {
        const escalation = { open: body.open, reason: body.open ? body.reason : null };
        return consoleTicketView(found(await setEscalation(ticketDeps, tenantId, ticketId, escalation, deps.now), TICKET_NOT_FOUND));
      },
    }),
  );

  routes.push(
    ticket.post('assignTicket', 'tickets/{ticket_id}/assign', {
      summary: 'Assign a ticket to one of the assignees, or `null` to unassign.',
      body: assignBody,
      response: { status: 200, description: 'The ticket.', schema: consoleTicketRecord },
      handler: async (ctx, { params: { ticket_id: ticketId }, body, workspace }) => {
        // An unknown assignee is a refusal the error handler answers (api/refusals.ts).
        return consoleTicketView(found(await assignTicket(ticketDeps, workspace, ticketId, body.assignee_id, deps.now), TICKET_NOT_FOUND));
      },
    }),
  );
  return routes;
}
