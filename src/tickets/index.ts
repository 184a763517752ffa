/** What other features use of tickets: opening one (POST /tickets's use case, and an agent's built-in `open_ticket`), its priorities, the triage port and its simulator. */
export { createOrFindTicket, type CreateTicketDeps, type NewTicketInput } from './createTicket';
export { TICKET_PRIORITIES, type TicketPriority } from './ticketRules';
export type { TicketDoc } from './ticketStore';
export { createSimulatedTriage } from './triage/simulatedTriage';
export type { TriageProvider } from './triage/triageProvider';
