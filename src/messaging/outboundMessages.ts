import type { Collection, Db } from 'mongodb';
import type { IndexSet } from '../db/collections';
import { findByIds } from '../db/findByIds';
import type { AllowanceSource } from './allowance';

/**
 * Messages the business sent, keyed by the provider's message id: what delivery statuses
 * join on (their workspace, recipient and conversation), and where a send's `metadata` is
 * kept (never sent, never echoed, not readable back through the API).
 */

export type DeliveryStatus = 'sent' | 'delivered' | 'read' | 'failed';

/**
 * What a send is, as its intent (src/messaging/sendIntents.ts) records it before the provider
 * is called and its outbound message keeps it afterwards.
 */
export interface SentMessageFacts {
  kind: 'text' | 'template';
  template: { name: string; language: string } | null;
  metadata: Record<string, unknown>;
  /** A campaign's message: its statuses move the recipient `<campaign_id>:<n>`; absent on older records. */
  campaign_id?: string | null;
  campaign_recipient_id?: string | null;
  provider: 'simulator' | 'cloud';
}

/**
 * What a send is on behalf of, beyond the API caller that asked: a campaign's recipient, whose
 * state follows the message's statuses (the hooks of src/messaging/deliveryStatus.ts). Messaging
 * only carries it onto the intent and the message; the feature that set it reads it back.
 */
export type SendOrigin = { kind: 'campaign'; id: string; recipientKey: string };

/** The stored fields of an origin (the intent's and the message's, unchanged since before `origin`): none is nulls. */
export function storedOrigin(origin: SendOrigin | null): Pick<SentMessageFacts, 'campaign_id' | 'campaign_recipient_id'> {
  return { campaign_id: origin?.id ?? null, campaign_recipient_id: origin?.recipientKey ?? null };
}

export interface OutboundMessageDoc extends SentMessageFacts {
  /** The provider's message id (the send result's `message_id`). */
  _id: string;
  tenant_id: string;
  sender_id: string;
  to: string;
  conversation_id: string;
  transcript_message_id: string;
  /** Where the billable conversation came from; null for text. */
  billed: AllowanceSource | null;
  status: DeliveryStatus;
  status_at: Date;
  created_at: Date;
}

/**
 * The outbound messages' indexes (src/main/indexes.ts): a workspace's messages by when they
 * were sent, for the console overview's day (`messageStatusesSince`). MongoDB answers from it;
 * FerretDB on SQLite scans whatever the index (docs/decisions/console.md).
 */
export const OUTBOUND_MESSAGE_INDEXES: IndexSet = {
  outbound_messages: [{ key: { tenant_id: 1, created_at: -1 }, name: 'tenant_sent' }],
};

export function outboundMessagesCollection(db: Db): Collection<OutboundMessageDoc> {
  return db.collection<OutboundMessageDoc>('outbound_messages');
}

/** The workspace's outbound records among these ids (by primary key: one lookup, not a scan). */
export async function findOutboundMessages(db: Db, tenantId: string, ids: string[]): Promise<OutboundMessageDoc[]> {
  return outboundMessagesCollection(db)
    .find({ _id: { $in: ids }, tenant_id: tenantId })
    .toArray();
}

/** The recorded status of each of these messages (by primary key), for a campaign's recipients catching up with theirs. */
export async function outboundStatuses(db: Db, ids: readonly string[]): Promise<Map<string, DeliveryStatus>> {
  const found = await findByIds(outboundMessagesCollection(db), ids, { projection: { status: 1 } });
  return new Map(found.map((m) => [m._id, m.status]));
}

/** A status may only move forward: a late `delivered` never replaces `read`. `failed` ends it. */
export const STATUS_RANK: Record<DeliveryStatus, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };

/**
 * The statuses of the workspace's messages sent at or after `since`, at most `cap` (the console
 * overview's day). Only `status` comes back: on FerretDB the filter scans the collection, so
 * the answer is kept small.
 */
export async function messageStatusesSince(db: Db, tenantId: string, since: Date, cap: number): Promise<DeliveryStatus[]> {
  const docs = await outboundMessagesCollection(db)
    .find({ tenant_id: tenantId, created_at: { $gte: since } }, { projection: { _id: 0, status: 1 } })
    .limit(cap)
    .toArray();
  return docs.map((d) => d.status);
}
