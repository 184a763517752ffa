import type { Db } from 'mongodb';
import { findContactIdFor } from '../contacts';
import type { WorkspaceDoc } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import type { EventPublisher } from '../events';
import { normaliseTags } from '../domain/tags';
import type { Logger } from '../observability/logger';
import { firstMessageId, publicRefCandidate, ticketIdFor } from './ticketIdentity';
import { createTags, slaDueAt, type TicketPriority } from './ticketRules';
import { pickAssignee } from './ticketSettings';
import { publishTicketCreated } from './ticketEvents';
import { applyTicketChange, findTicket, ticketCollections, versionId, type TicketActor, type TicketDoc } from './ticketStore';
import { runTriage } from './triage/runTriage';
import type { TriageProvider } from './triage/triageProvider';

export interface NewTicketInput {
  subject: string;
  description: string;
  priority: TicketPriority;
  requester: { name: string | null; email: string | null; phone: string | null; external_id: string | null };
  tags: string[];
}

export interface CreateTicketDeps {
  db: Db;
  events: EventPublisher;
  triage: TriageProvider;
  triageTimeoutMs?: number;
  logger: Logger;
}

/** Gives the ticket the first free reference of its candidate sequence (its own, on a retry). */
async function claimPublicRef(db: Db, tenantId: string, ticketId: string): Promise<string> {
  const { refs } = ticketCollections(db);
  for (let attempt = 0; attempt < 16; attempt++) {
    const ref = publicRefCandidate(ticketId, attempt);
    const doc = { _id: `${tenantId}|${ref}`, tenant_id: tenantId, ticket_id: ticketId };
    if (await insertIfAbsent(refs, doc)) return ref;
    const holder = await refs.findOne({ _id: doc._id });
    if (holder?.ticket_id === ticketId) return ref;
  }
  throw new Error(`no free public reference for ${ticketId} after 16 candidates`);
}

/**
 * Attaches triage notes as the ticket's next version. Inline with a deadline so the create
 * response usually shows them (version 2); a failure or timeout leaves `triage` null and the
 * ticket at version 1, and is logged.
 */
async function attachTriage(deps: CreateTicketDeps, ticket: TicketDoc, input: NewTicketInput, now: () => Date): Promise<TicketDoc> {
  const outcome = await runTriage(
    deps.triage,
    { subject: input.subject, description: input.description, priority: input.priority, tags: ticket.tags },
    deps.triageTimeoutMs,
  );
  if (!outcome.ok) {
    deps.logger.warn({ ticket_id: ticket._id, provider: deps.triage.name, error: outcome.error }, 'ticket triage failed; created without notes');
    return ticket;
  }
  const at = now();
  const triage = {
    provider: deps.triage.name,
    suggested_category: outcome.suggestion.category,
    suggested_priority: outcome.suggestion.priority,
    notes: outcome.suggestion.notes,
    attached_at: at,
  };
  const actor: TicketActor = { kind: 'triage', provider: deps.triage.name };
  const result = await applyTicketChange(deps.db, ticket, { set: { triage }, changes: { triage: { from: null, to: triage.notes } }, actor, event: null }, at);
  return result.kind === 'applied' ? result.ticket : ticket;
}

/**
 * POST /tickets behind the route: the ticket named by the request's raw bytes, created if
 * absent. A byte-identical body finds the ticket made before, whatever its state, and
 * re-publishes `ticket.created` (a no-op unless the first request died before storing it).
 */
export async function createOrFindTicket(
  deps: CreateTicketDeps,
  request: {
    workspace: WorkspaceDoc;
    /** Who asks: an API key's id, or an agent (its built-in `open_ticket`), whose ticket names its channel and thread. */
    by: { keyId: string } | { agentId: string; source: TicketDoc['source'] };
    rawBody: Buffer;
    input: NewTicketInput;
  },
  now: () => Date,
): Promise<{ ticket: TicketDoc; created: boolean }> {
  const { db } = deps;
  const { tickets, messages, versions } = ticketCollections(db);
  const tenantId = request.workspace._id;
  const ticketId = ticketIdFor(tenantId, request.rawBody);

  const existing = await findTicket(db, tenantId, ticketId);
  if (existing) {
    await publishTicketCreated(deps.events, existing);
    return { ticket: existing, created: false };
  }

  const createdAt = now();
  const { input } = request;
  const actor: TicketActor = 'keyId' in request.by ? { kind: 'api_key', key_id: request.by.keyId } : { kind: 'agent', agent_id: request.by.agentId };
  const [publicRef, assignee, contactId] = await Promise.all([
    claimPublicRef(db, tenantId, ticketId),
    pickAssignee(db, request.workspace),
    findContactIdFor(db, tenantId, input.requester, request.workspace.country),
  ]);
  // The description is written first, so a ticket never exists without its first message.
  await insertIfAbsent(messages, {
    _id: firstMessageId(ticketId),
    tenant_id: tenantId,
    ticket_id: ticketId,
    seq: 1,
    kind: 'customer',
    author_name: input.requester.name,
    text: input.description,
    delivery_state: null,
    created_at: createdAt,
  });
  const doc: TicketDoc = {
    _id: ticketId,
    tenant_id: tenantId,
    public_ref: publicRef,
    subject: input.subject,
    status: 'new',
    priority: input.priority,
    category: null,
    // `api` marks what came through the API; an agent's ticket carries the tags it was given.
    tags: 'keyId' in request.by ? createTags(input.tags) : normaliseTags(input.tags),
    requester: input.requester,
    source: 'source' in request.by ? request.by.source : { channel: 'api', thread_id: null, message_id: null },
    assignee_id: assignee?.id ?? null,
    assignee_name: assignee?.name ?? null,
    version: 1,
    message_count: 1,
    sla_due_at: slaDueAt(input.priority, createdAt),
    created_at: createdAt,
    updated_at: createdAt,
    contact_id: contactId,
    triage: null,
    escalation: { open: false, reason: null, opened_at: null, cleared_at: null },
    status_changed_at: createdAt,
    resolved_at: null,
    closed_at: null,
    created_by: actor,
    last_changed_by: actor,
  };
  if (!(await insertIfAbsent(tickets, doc))) {
    // The same bytes raced in: the other request made the ticket (and triages it).
    const raced = await findTicket(db, tenantId, ticketId);
    if (!raced) throw new Error(`ticket ${ticketId} vanished after a duplicate insert`);
    await publishTicketCreated(deps.events, raced);
    return { ticket: raced, created: false };
  }
  await insertIfAbsent(versions, {
    _id: versionId(ticketId, 1),
    tenant_id: tenantId,
    ticket_id: ticketId,
    version: 1,
    actor,
    set: {},
    changes: {},
    event: 'ticket.created',
    created_at: createdAt,
  });
  const ticket = await attachTriage(deps, doc, input, now);
  await publishTicketCreated(deps.events, ticket);
  return { ticket, created: true };
}
