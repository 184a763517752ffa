import type { Db } from 'mongodb';
import type { EventPublisher } from '../events';
import { normaliseTags } from '../domain/tags';
import { publishTicketUpdated } from './ticketEvents';
import { canMove, isFinished, type TicketPriority, type TicketStatus } from './ticketRules';
import { applyTicketChange, findTicket, withdrawHeldReplies, type TicketDoc, type TicketVersionDoc } from './ticketStore';

export interface TicketPatch {
  expected_version: number;
  status?: TicketStatus;
  priority?: TicketPriority;
  /** `null` clears it. */
  category?: string | null;
  /** Replaces the tags; normalised, `api` not added. */
  tags?: string[];
}

export type PatchOutcome =
  | { kind: 'not_found' }
  | { kind: 'version_conflict'; currentVersion: number }
  | { kind: 'disallowed_move'; from: TicketStatus; to: TicketStatus }
  | { kind: 'unchanged'; ticket: TicketDoc }
  | { kind: 'updated'; ticket: TicketDoc };

type Change = { set: Record<string, unknown>; changes: TicketVersionDoc['changes'] };

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/** What the patch changes on this ticket; a disallowed move is refused before anything is written. */
export function ticketChange(ticket: TicketDoc, patch: TicketPatch, now: Date): Change | { disallowed: { from: TicketStatus; to: TicketStatus } } {
  const set: Record<string, unknown> = {};
  const changes: TicketVersionDoc['changes'] = {};
  const record = (field: string, to: unknown, from: unknown) => {
    set[field] = to;
    changes[field] = { from, to };
  };
  if (patch.status !== undefined && patch.status !== ticket.status) {
    if (!canMove(ticket.status, patch.status)) return { disallowed: { from: ticket.status, to: patch.status } };
    record('status', patch.status, ticket.status);
    set.status_changed_at = now;
    if (patch.status === 'resolved') set.resolved_at = now;
    if (patch.status === 'closed') set.closed_at = now;
    if (isFinished(patch.status) && ticket.escalation.open) {
      set.escalation = { ...ticket.escalation, open: false, cleared_at: now };
      changes.escalation = { from: 'open', to: 'cleared' };
    }
  }
  if (patch.priority !== undefined && patch.priority !== ticket.priority) record('priority', patch.priority, ticket.priority);
  if (patch.category !== undefined && patch.category !== ticket.category) record('category', patch.category, ticket.category);
  if (patch.tags !== undefined) {
    const tags = normaliseTags(patch.tags);
    if (!sameList(tags, ticket.tags)) record('tags', tags, ticket.tags);
  }
  return { set, changes };
}

/**
 * PATCH /tickets/{id} behind the route. The version is checked first, then the move; a
 * patch that changes nothing answers the ticket as it is. A change becomes the next
 * version (one per PATCH, however many fields), recorded against the API key, and fires
 * `ticket.updated`. Of concurrent patches made against the same version exactly one wins.
 */
export async function patchTicket(
  deps: { db: Db; events: EventPublisher },
  request: { tenantId: string; ticketId: string; keyId: string; patch: TicketPatch },
  now: Date,
): Promise<PatchOutcome> {
  const { db } = deps;
  const ticket = await findTicket(db, request.tenantId, request.ticketId);
  if (!ticket) return { kind: 'not_found' };
  if (ticket.version !== request.patch.expected_version) return { kind: 'version_conflict', currentVersion: ticket.version };
  const change = ticketChange(ticket, request.patch, now);
  if ('disallowed' in change) return { kind: 'disallowed_move', ...change.disallowed };
  if (Object.keys(change.changes).length === 0) return { kind: 'unchanged', ticket };

  const result = await applyTicketChange(db, ticket, { ...change, actor: { kind: 'api_key', key_id: request.keyId }, event: 'ticket.updated' }, now);
  if (result.kind === 'conflict') {
    if (result.finished) await afterChange(deps, result.finished.ticket, result.finished.claim);
    return { kind: 'version_conflict', currentVersion: result.currentVersion };
  }
  await afterChange(deps, result.ticket, result.claim);
  return { kind: 'updated', ticket: result.ticket };
}

/** What follows a written version: held replies withdrawn on resolve or close, and its event. */
export async function afterChange(deps: { db: Db; events: EventPublisher }, ticket: TicketDoc, claim: TicketVersionDoc): Promise<void> {
  const to = claim.changes.status?.to;
  if (typeof to === 'string' && isFinished(to as TicketStatus)) await withdrawHeldReplies(deps.db, ticket.tenant_id, ticket._id);
  if (claim.event === 'ticket.updated') await publishTicketUpdated(deps.events, ticket, claim);
}
