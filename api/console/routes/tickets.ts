import Router from '@koa/router';
import { z } from 'zod';
import { credentialsChanged } from '../../../src/auth/credentialCache';
import { collections } from '../../../src/db/collections';
import { assignTicket, setEscalation, UnknownAssigneeError } from '../../../src/tickets/consoleTicketActions';
import { isTicketId } from '../../../src/tickets/ticketIdentity';
import { ticketSettingsOf, type TicketSettings } from '../../../src/tickets/ticketSettings';
import { findTicket, ticketCollections, type TicketDoc } from '../../../src/tickets/ticketStore';
import type { RequestState } from '../../context';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { ticketView } from '../../v1/routes/ticketSchemas';
import { bodyOf, loadWorkspace, tenantList, withWorkspaceBody, type ConsoleDeps, type Params } from '../deps';

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

const settingsView = (s: TicketSettings) => ({
  auto_assign: s.auto_assign,
  assignment: s.assignment,
  assignees: s.assignees.map((a) => ({ assignee_id: a.id, name: a.name })),
});

/** The public record plus what only the console sees: triage notes, escalation, links, bookkeeping. */
const consoleTicketView = (t: TicketDoc) => ({
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

const ticketIdOf = (ctx: unknown) => (ctx as Params<'ticket_id'>).params.ticket_id;

/** Ticket settings (auto-assignment), the assignee list, and the console-only ticket actions. */
export function ticketRoutes(router: Router<RequestState>, deps: ConsoleDeps): void {
  const { workspaces } = collections(deps.db);
  const { tickets, messages, versions } = ticketCollections(deps.db);
  const ticketDeps = { db: deps.db, events: deps.events };

  router.get('/workspaces/:workspace_id/ticket-settings', loadWorkspace(deps), (ctx) => {
    ctx.body = settingsView(ticketSettingsOf(ctx.state.workspace!));
  });

  router.patch('/workspaces/:workspace_id/ticket-settings', ...withWorkspaceBody(deps, ticketSettingsBody), async (ctx) => {
    const body = bodyOf(ctx, ticketSettingsBody);
    const set = Object.fromEntries(Object.entries(body).map(([key, value]) => [`ticket_settings.${key}`, value]));
    const updated = await workspaces.findOneAndUpdate(
      { _id: ctx.state.workspace!._id },
      { $set: { ...set, updated_at: deps.now() } },
      { returnDocument: 'after' },
    );
    credentialsChanged(ctx.state.workspace!._id);
    ctx.body = settingsView(ticketSettingsOf(updated!));
  });

  router.get('/workspaces/:workspace_id/ticket-assignees', loadWorkspace(deps), (ctx) => {
    ctx.body = { items: settingsView(ticketSettingsOf(ctx.state.workspace!)).assignees };
  });

  tenantList(router, deps, 'tickets', tickets, (t) => consoleTicketView(t as TicketDoc), { created_at: -1, _id: -1 });

  router.get('/workspaces/:workspace_id/tickets/:ticket_id', loadWorkspace(deps), async (ctx) => {
    const tenantId = ctx.state.workspace!._id;
    const ticketId = ticketIdOf(ctx);
    const ticket = isTicketId(ticketId) ? await findTicket(deps.db, tenantId, ticketId) : null;
    if (!ticket) throw new ApiError('not_found', 'Ticket not found.');
    const [thread, history] = await Promise.all([
      messages.find({ tenant_id: tenantId, ticket_id: ticketId }).sort({ seq: 1 }).toArray(),
      versions.find({ tenant_id: tenantId, ticket_id: ticketId }).sort({ version: 1 }).toArray(),
    ]);
    ctx.body = {
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
    };
  });

  router.post('/workspaces/:workspace_id/tickets/:ticket_id/escalation', ...withWorkspaceBody(deps, escalationBody), async (ctx) => {
    const body = bodyOf(ctx, escalationBody);
    const ticketId = ticketIdOf(ctx);
    const ticket = isTicketId(ticketId)
      ? await setEscalation(ticketDeps, ctx.state.workspace!._id, ticketId, { open: body.open, reason: body.open ? body.reason : null }, deps.now)
      : null;
    if (!ticket) throw new ApiError('not_found', 'Ticket not found.');
    ctx.body = consoleTicketView(ticket);
  });

  router.post('/workspaces/:workspace_id/tickets/:ticket_id/assign', ...withWorkspaceBody(deps, assignBody), async (ctx) => {
    const body = bodyOf(ctx, assignBody);
    const ticketId = ticketIdOf(ctx);
    let ticket: TicketDoc | null = null;
    try {
      ticket = isTicketId(ticketId) ? await assignTicket(ticketDeps, ctx.state.workspace!, ticketId, body.assignee_id, deps.now) : null;
    } catch (err) {
      if (err instanceof UnknownAssigneeError) {
        throw new ApiError('invalid_argument', `${err.assigneeId} is not one of this workspace's ticket assignees.`, { reason: 'unknown_assignee' });
      }
      throw err;
    }
    if (!ticket) throw new ApiError('not_found', 'Ticket not found.');
    ctx.body = consoleTicketView(ticket);
  });
}
