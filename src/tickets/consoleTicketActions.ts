import type { Db } from 'mongodb';
import { Refusal } from '../domain/refusal';
import type { EventPublisher } from '../events';
import { afterChange } from './patchTicket';
import { ticketSettingsOf } from './ticketSettings';
import { applyTicketChange, findTicket, type TicketDoc, type TicketVersionDoc } from './ticketStore';
import type { WorkspaceDoc } from '../db/collections';

/**
 * The console's ticket actions (escalation, assignment): each is the ticket's next
 * version, recorded against the console, retried against the newest version when a
 * concurrent change took the one it read. They fire no `ticket.updated` (the contract
 * emits it for API PATCHes).
 */

type Change = { set: Record<string, unknown>; changes: TicketVersionDoc['changes'] };

export class UnknownAssigneeError extends Refusal<'unknown_assignee'> {
  override readonly name = 'UnknownAssigneeError';
  constructor(readonly assigneeId: string) {
    super('unknown_assignee', `${assigneeId} is not one of this workspace's ticket assignees.`);
  }
}

async function changeFromConsole(
  deps: { db: Db; events: EventPublisher },
  tenantId: string,
  ticketId: string,
  compute: (ticket: TicketDoc, now: Date) => Change | null,
  now: () => Date,
): Promise<TicketDoc | null> {
  for (let round = 0; round < 5; round++) {
    const ticket = await findTicket(deps.db, tenantId, ticketId);
    if (!ticket) return null;
    const at = now();
    const change = compute(ticket, at);
    if (!change || Object.keys(change.changes).length === 0) return ticket;
    const result = await applyTicketChange(deps.db, ticket, { ...change, actor: { kind: 'console' }, event: null }, at);
    if (result.kind === 'applied') {
      await afterChange(deps, result.ticket, result.claim);
      return result.ticket;
    }
    if (result.finished) await afterChange(deps, result.finished.ticket, result.finished.claim);
  }
  throw new Error(`ticket ${ticketId} kept changing; console change not applied`);
}

/** Opens (with a reason) or clears the ticket's escalation; the same state again changes nothing. */
export function setEscalation(
  deps: { db: Db; events: EventPublisher },
  tenantId: string,
  ticketId: string,
  wanted: { open: boolean; reason: string | null },
  now: () => Date,
): Promise<TicketDoc | null> {
  return changeFromConsole(
    deps,
    tenantId,
    ticketId,
    (ticket, at) => {
      if (ticket.escalation.open === wanted.open && (!wanted.open || ticket.escalation.reason === wanted.reason)) return null;
      const escalation = wanted.open
        ? { open: true, reason: wanted.reason, opened_at: at, cleared_at: null }
        : { ...ticket.escalation, open: false, cleared_at: at };
      return { set: { escalation }, changes: { escalation: { from: ticket.escalation.open ? 'open' : 'none', to: wanted.open ? 'open' : 'cleared' } } };
    },
    now,
  );
}

/** Assigns the ticket to one of the workspace's assignees, or unassigns it (`null`). */
export function assignTicket(
  deps: { db: Db; events: EventPublisher },
  workspace: WorkspaceDoc,
  ticketId: string,
  assigneeId: string | null,
  now: () => Date,
): Promise<TicketDoc | null> {
  const assignee = assigneeId === null ? null : ticketSettingsOf(workspace).assignees.find((a) => a.id === assigneeId);
  if (assignee === undefined) throw new UnknownAssigneeError(assigneeId!);
  return changeFromConsole(
    deps,
    workspace._id,
    ticketId,
    (ticket) => {
      if (ticket.assignee_id === (assignee?.id ?? null) && ticket.assignee_name === (assignee?.name ?? null)) return null;
      return {
        set: { assignee_id: assignee?.id ?? null, assignee_name: assignee?.name ?? null },
        changes: { assignee_id: { from: ticket.assignee_id, to: assignee?.id ?? null } },
      };
    },
    now,
  );
}
