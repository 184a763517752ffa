import { normaliseTags } from '../domain/tags';

export { normaliseTags };

/**
 * The ticket rules the contract states (campaigns-tickets-dues §3, §4): statuses and the
 * moves a PATCH may make, priorities and their SLA, and how tags are normalised. Pure, so
 * the API, the console and tests share one definition.
 */

export const TICKET_STATUSES = ['new', 'open', 'pending', 'waiting_customer', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

/** The allowed-moves table; nothing moves back to `new`. */
export const ALLOWED_MOVES: Record<TicketStatus, readonly TicketStatus[]> = {
  new: ['open', 'pending', 'waiting_customer', 'resolved', 'closed'],
  open: ['pending', 'waiting_customer', 'resolved', 'closed'],
  pending: ['open', 'waiting_customer', 'resolved', 'closed'],
  waiting_customer: ['open', 'pending', 'resolved', 'closed'],
  resolved: ['open', 'closed'],
  closed: ['open'],
};

export function canMove(from: TicketStatus, to: TicketStatus): boolean {
  return ALLOWED_MOVES[from].includes(to);
}

/** Statuses that end the work: an open escalation is cleared and held replies are withdrawn. */
export function isFinished(status: TicketStatus): boolean {
  return status === 'resolved' || status === 'closed';
}

export const SLA_HOURS: Record<TicketPriority, number> = { urgent: 2, high: 8, normal: 24, low: 72 };

/** Set once at creation; a later priority change does not move it. */
export function slaDueAt(priority: TicketPriority, createdAt: Date): Date {
  return new Date(createdAt.getTime() + SLA_HOURS[priority] * 3_600_000);
}

export const API_TAG = 'api';

/** Tags of an API-created ticket: normalised, then `api` added when missing. */
export function createTags(tags: readonly string[]): string[] {
  const out = normaliseTags(tags);
  if (!out.includes(API_TAG)) out.push(API_TAG);
  return out;
}
