import type { Middleware } from 'koa';
import type { WorkspaceDoc } from '../../../src/db/collections';
import { createOrFindTicket } from '../../../src/tickets/createTicket';
import { patchTicket } from '../../../src/tickets/patchTicket';
import { findTicket } from '../../../src/tickets/ticketStore';
import { createSimulatedTriage } from '../../../src/tickets/triage/simulatedTriage';
import type { TriageProvider } from '../../../src/tickets/triage/triageProvider';
import type { RequestState } from '../../context';
import { ApiError, found } from '../../errors';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteDef } from '../../route';
import { checkPhone } from '../../shared/personFields';
import { createTicketBody, patchTicketBody, ticketParams, ticketRecord } from '../../shared/tickets.schema';
import { ticketView } from '../../shared/ticketView';

/** Tickets answer 412 when the deployment lacks them (api-core §7: not transient). */
function requireTickets(workspace: WorkspaceDoc): void {
  if (!workspace.capabilities.tickets) {
    throw new ApiError('failed_precondition', 'Tickets are not available on this deployment.', { reason: 'unsupported_resource' });
  }
}

/** As a route precondition: before the ticket id is read (412 before 404). */
const ticketsAvailable: Middleware<RequestState> = async (ctx, next) => {
  requireTickets(ctx.state.workspace!);
  await next();
};

const TICKET_NOT_FOUND = 'Ticket not found.';
const notFound = () => new ApiError('not_found', TICKET_NOT_FOUND);

const tickets = routeGroup({ auth: { scope: 'tickets:write' } });
/** `/tickets/{ticket_id}`: 412 on a deployment without tickets, then the ticket or 404. */
const ticket = tickets.group({
  params: ticketParams,
  notFound: { ticket_id: TICKET_NOT_FOUND },
  requires: ticketsAvailable,
  errors: ['not_found', 'failed_precondition'],
});

const blankToNull = (value: string | null) => (value !== null && value.trim() !== '' ? value.trim() : null);

export interface TicketRouteOptions {
  /** Defaults to the deterministic simulator. */
  triage?: TriageProvider;
  triageTimeoutMs?: number;
}

export function ticketsRoutes(deps: Pick<PublicDeps, 'db' | 'events' | 'logger' | 'now'>, options: TicketRouteOptions = {}): RouteDef[] {
  const now = deps.now ?? (() => new Date());
  const triage = options.triage ?? createSimulatedTriage();
  return [
    tickets.post('createTicket', '/api/v1/tickets', {
      summary:
        'Open a ticket. The id derives from the raw body: byte-identical bodies return the same ticket (201) for as long as it exists.',
      idempotent: true,
      body: createTicketBody,
      response: { status: 201, description: 'The ticket (new, or the one these bytes created before).', schema: ticketRecord },
      errors: ['conflict', 'failed_precondition'],
      handler: async (ctx, { body }) => {
        const requester = {
          name: blankToNull(body.requester_name),
          email: blankToNull(body.requester_email),
          phone: blankToNull(body.requester_phone),
          external_id: blankToNull(body.requester_external_id),
        };
        if (!requester.name && !requester.email && !requester.phone) {
          throw new ApiError('invalid_argument', 'Provide at least one requester detail (name, email, or phone).');
        }
        const workspace = ctx.state.workspace!;
        // The contacts' rule, so a ticket never keeps a number its requester's contact would refuse.
        checkPhone(requester.phone, ['body', 'requester_phone'], workspace.country);
        requireTickets(workspace);
        const { ticket } = await createOrFindTicket(
          { db: deps.db, events: deps.events, triage, triageTimeoutMs: options.triageTimeoutMs, logger: ctx.state.log },
          {
            workspace,
            by: { keyId: ctx.state.apiKey!.key_id },
            rawBody: ctx.state.rawBody ?? Buffer.alloc(0),
            input: { subject: body.subject, description: body.description, priority: body.priority, requester, tags: body.tags },
          },
          now,
        );
        return ticketView(ticket);
      },
    }),
    ticket.get('getTicket', '/api/v1/tickets/{ticket_id}', {
      summary: 'Read a ticket as it is now; the conversation is not included.',
      response: { status: 200, description: 'The ticket.', schema: ticketRecord },
      handler: async (ctx, { params: { ticket_id } }) => ticketView(found(await findTicket(deps.db, ctx.state.workspace!._id, ticket_id), TICKET_NOT_FOUND)),
    }),
    ticket.patch('updateTicket', '/api/v1/tickets/{ticket_id}', {
      summary: 'Change status (allowed moves only), priority, category or tags, at the version last read.',
      body: patchTicketBody,
      response: { status: 200, description: 'The ticket; version plus one when something changed.', schema: ticketRecord },
      errors: ['conflict'],
      handler: async (ctx, { params: { ticket_id: ticketId }, body: patch }) => {
        const outcome = await patchTicket(
          { db: deps.db, events: deps.events },
          { tenantId: ctx.state.workspace!._id, ticketId, keyId: ctx.state.apiKey!.key_id, patch },
          now(),
        );
        switch (outcome.kind) {
          case 'not_found':
            throw notFound();
          case 'version_conflict':
            throw new ApiError('conflict', 'Ticket changed since it was loaded.', {
              expected_version: patch.expected_version,
              current_version: outcome.currentVersion,
            });
          case 'disallowed_move':
            throw new ApiError('invalid_argument', `Cannot move a ticket from ${outcome.from} to ${outcome.to}.`);
          case 'unchanged':
          case 'updated':
            return ticketView(outcome.ticket);
        }
      },
    }),
  ];
}
