import type { Collection, Db } from 'mongodb';
import type { IndexSet } from '../db/collections';
import { claimHolding, claimVersion, isAbandoned, nextVersionClaim, writeClaim, type VersionedStore } from '../db/versionedWrite';
import type { TicketPriority, TicketStatus } from './ticketRules';

/** Who made a change: an API key (recorded by id), a console operator, or triage. */
export type TicketActor = { kind: 'api_key'; key_id: string } | { kind: 'console' } | { kind: 'triage'; provider: string } | { kind: 'agent'; agent_id: string };

export interface TicketTriage {
  provider: string;
  suggested_category: string | null;
  suggested_priority: TicketPriority | null;
  notes: string;
  attached_at: Date;
}

export interface TicketEscalation {
  open: boolean;
  reason: string | null;
  opened_at: Date | null;
  cleared_at: Date | null;
}

/** A support ticket: the contract's fields plus bookkeeping the API does not return. */
export interface TicketDoc {
  /** `tkt_` + 24 hex derived from the workspace and the create request's raw body. */
  _id: string;
  tenant_id: string;
  public_ref: string;
  subject: string;
  status: TicketStatus;
  priority: TicketPriority;
  category: string | null;
  tags: string[];
  requester: { name: string | null; email: string | null; phone: string | null; external_id: string | null };
  source: { channel: string; thread_id: string | null; message_id: string | null };
  assignee_id: string | null;
  assignee_name: string | null;
  version: number;
  message_count: number;
  sla_due_at: Date;
  created_at: Date;
  updated_at: Date;
  /** The workspace contact the requester's email or phone belonged to at creation. */
  contact_id: string | null;
  triage: TicketTriage | null;
  escalation: TicketEscalation;
  status_changed_at: Date;
  resolved_at: Date | null;
  closed_at: Date | null;
  created_by: TicketActor;
  last_changed_by: TicketActor;
}

/** A ticket message: the description (the first one), staff replies, notes. */
export interface TicketMessageDoc {
  _id: string;
  tenant_id: string;
  ticket_id: string;
  seq: number;
  kind: 'customer' | 'staff_reply' | 'note';
  author_name: string | null;
  text: string;
  /**
   * Staff replies only: `held` waits for the customer to open the conversation; moving the
   * ticket to resolved or closed turns a held reply `withdrawn`, so it is never delivered.
   */
  delivery_state: 'held' | 'sent' | 'delivered' | 'withdrawn' | null;
  created_at: Date;
}

/**
 * One document per ticket version, `_id` `<ticket_id>:<version>`: the history of who changed
 * what, and the claim that makes a version change exclusive. FerretDB applies a conditional
 * update by reading and then writing, so a `{version: N}` filter alone lets several
 * writers through (measured: 2 to 10 of 10 racing updates "won"); inserting a unique `_id`
 * is atomic there, so whoever inserts `<id>:<N+1>` is the only one who may write version N+1.
 */
export interface TicketVersionDoc {
  _id: string;
  tenant_id: string;
  ticket_id: string;
  version: number;
  actor: TicketActor;
  /**
   * What this version writes onto the ticket, whole top-level fields (never dotted paths:
   * the claim was taken against one version, so whole values are safe), so anyone can
   * finish a claim its writer left.
   */
  set: Record<string, unknown>;
  /** Field by field, what the change was. */
  changes: Record<string, { from: unknown; to: unknown }>;
  /** The event the change fires, if any. */
  event: 'ticket.created' | 'ticket.updated' | null;
  created_at: Date;
}

export interface PublicRefDoc {
  /** `<tenant_id>|<public_ref>`. */
  _id: string;
  tenant_id: string;
  ticket_id: string;
}

export interface TicketCollections {
  tickets: Collection<TicketDoc>;
  messages: Collection<TicketMessageDoc>;
  versions: Collection<TicketVersionDoc>;
  refs: Collection<PublicRefDoc>;
}

export function ticketCollections(db: Db): TicketCollections {
  return {
    tickets: db.collection<TicketDoc>('tickets'),
    messages: db.collection<TicketMessageDoc>('ticket_messages'),
    versions: db.collection<TicketVersionDoc>('ticket_versions'),
    refs: db.collection<PublicRefDoc>('ticket_public_refs'),
  };
}

/** The tickets' indexes, created at each start by the composition roots (src/main/indexes.ts). */
export const TICKET_INDEXES: IndexSet = {
  tickets: [{ key: { tenant_id: 1, created_at: -1 }, name: 'tenant_newest' }],
  ticket_messages: [{ key: { ticket_id: 1, seq: 1 }, name: 'ticket_seq' }],
  ticket_versions: [{ key: { ticket_id: 1, version: 1 }, name: 'ticket_version' }],
};

export function versionId(ticketId: string, version: number): string {
  return `${ticketId}:${version}`;
}

/**
 * A ticket of the workspace by id; another workspace's ticket is as missing as an unknown
 * one. Read by `_id` alone and the workspace compared here: FerretDB on SQLite answers only
 * a bare `{_id}` filter from its index (measured on 20,000 documents: 4 ms, against 25 ms
 * with `tenant_id` added).
 */
export async function findTicket(db: Db, tenantId: string, ticketId: string): Promise<TicketDoc | null> {
  const ticket = await ticketCollections(db).tickets.findOne({ _id: ticketId });
  return ticket?.tenant_id === tenantId ? ticket : null;
}

/** A ticket's messages in order and its version history, oldest first. */
export async function ticketThreadAndHistory(db: Db, tenantId: string, ticketId: string): Promise<[TicketMessageDoc[], TicketVersionDoc[]]> {
  const { messages, versions } = ticketCollections(db);
  return Promise.all([
    messages.find({ tenant_id: tenantId, ticket_id: ticketId }).sort({ seq: 1 }).toArray(),
    versions.find({ tenant_id: tenantId, ticket_id: ticketId }).sort({ version: 1 }).toArray(),
  ]);
}

/** A claim older than this whose ticket never reached its version was left by a process that died. */
export const VERSION_CLAIM_LEASE_MS = 30_000;

export type ChangeResult =
  | { kind: 'applied'; ticket: TicketDoc; claim: TicketVersionDoc }
  | { kind: 'conflict'; currentVersion: number; finished: { ticket: TicketDoc; claim: TicketVersionDoc } | null };

/** The tickets' versioned write (src/db/versionedWrite.ts); the workspace was checked when the ticket was read. */
const versioned = (db: Db): VersionedStore<TicketDoc, TicketVersionDoc> => {
  const { tickets, versions } = ticketCollections(db);
  return { records: tickets, claims: versions, recordOf: (claim) => claim.ticket_id, read: (claim) => findTicket(db, claim.tenant_id, claim.ticket_id) };
};

/**
 * Moves the ticket from `ticket.version` to the next version with `set`: claims the next
 * version, then writes it. Losing the claim is a conflict; if the claim that won was left
 * unwritten by a process that died, it is written here (and returned as `finished`, so its
 * event can still be fired) before answering the conflict.
 */
export async function applyTicketChange(
  db: Db,
  ticket: TicketDoc,
  change: { set: Record<string, unknown>; changes: TicketVersionDoc['changes']; actor: TicketActor; event: TicketVersionDoc['event'] },
  now: Date,
): Promise<ChangeResult> {
  const store = versioned(db);
  const fields = { ticket_id: ticket._id, actor: change.actor, changes: change.changes, event: change.event };
  const claim: TicketVersionDoc = nextVersionClaim(ticket, versionId, fields, { ...change.set, last_changed_by: change.actor }, now);
  const version = claim.version;
  if (await claimVersion(store, claim)) {
    const written = await writeClaim(store, claim);
    if (!written) throw new Error(`ticket ${ticket._id} moved past version ${version - 1} while its claim for ${version} was held`);
    return { kind: 'applied', ticket: written, claim };
  }
  const winner = await claimHolding(store, claim._id);
  let finished: { ticket: TicketDoc; claim: TicketVersionDoc } | null = null;
  if (winner && now.getTime() - winner.created_at.getTime() > VERSION_CLAIM_LEASE_MS) {
    const current = await findTicket(db, ticket.tenant_id, ticket._id);
    if (current && isAbandoned(winner, current, now, VERSION_CLAIM_LEASE_MS)) {
      const written = await writeClaim(store, winner);
      if (written) finished = { ticket: written, claim: winner };
    }
  }
  const current = await findTicket(db, ticket.tenant_id, ticket._id);
  return { kind: 'conflict', currentVersion: Math.max(current?.version ?? 0, version), finished };
}

/** Staff replies still held for the customer are withdrawn when the ticket is resolved or closed. */
export async function withdrawHeldReplies(db: Db, tenantId: string, ticketId: string): Promise<number> {
  const { messages } = ticketCollections(db);
  const result = await messages.updateMany(
    { tenant_id: tenantId, ticket_id: ticketId, delivery_state: 'held' },
    { $set: { delivery_state: 'withdrawn' } },
  );
  return result.modifiedCount;
}
