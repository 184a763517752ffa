import { createHash } from 'node:crypto';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export const TICKET_ID_PATTERN = /^tkt_[0-9a-f]{24}$/;

/**
 * `tkt_` plus 24 hex of sha256(workspace, raw request body): a byte-identical body always
 * names the same ticket, so a retry finds the ticket it made; the workspace is hashed in so
 * two workspaces sending the same bytes get tickets of their own.
 */
export function ticketIdFor(tenantId: string, rawBody: Buffer): string {
  return `tkt_${sha256(Buffer.concat([Buffer.from(`${tenantId}\u0000`), rawBody])).slice(0, 24)}`;
}

export function isTicketId(value: string): boolean {
  return TICKET_ID_PATTERN.test(value);
}

export const PUBLIC_REF_PREFIX = 'TKT';

/**
 * The reference quoted to a customer: `TKT-` and 8 uppercase hex. The first candidate is
 * the ticket id's first 8 hex digits; if another ticket of the workspace already holds it
 * (32 bits collide in practice after tens of thousands of tickets), the next candidates are
 * hashes of the id and the attempt number, so every request for the ticket derives the
 * same sequence.
 */
export function publicRefCandidate(ticketId: string, attempt: number): string {
  const hex = attempt === 0 ? ticketId.slice(4, 12) : sha256(`${ticketId}:${attempt}`).slice(0, 8);
  return `${PUBLIC_REF_PREFIX}-${hex.toUpperCase()}`;
}

/** The first message's id, derived so a retried create writes it once. */
export function firstMessageId(ticketId: string): string {
  return `tmsg_${sha256(`${ticketId}:message:1`).slice(0, 24)}`;
}
