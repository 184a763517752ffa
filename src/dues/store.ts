import { createHash } from 'node:crypto';
import type { Collection, Db, IndexDescription } from 'mongodb';
import type { CycleUnit } from './cycle';
import { idRange } from '../domain/ids';

/**
 * The dues app's records (campaigns-tickets-dues §2): subscribers, their dues, the claim that
 * keeps one subscriber per phone, and the claims that make a due's version change exclusive.
 * Point reads go by `_id`; the subscribers list walks the `_id` range (subscribersPage); the dues
 * lists read through their keyed entries (src/dues/dueLists.ts), or until those are backfilled
 * filter on `tenant_id` (FerretDB scans them, MongoDB uses the indexes below).
 */

export const SUBSCRIBER_STATUSES = ['active', 'paused', 'cancelled'] as const;
export type SubscriberStatus = (typeof SUBSCRIBER_STATUSES)[number];

export const DUE_STATUSES = ['scheduled', 'reminded', 'followup_1', 'followup_2', 'paid', 'declined', 'waived', 'cancelled'] as const;
export type DueStatus = (typeof DUE_STATUSES)[number];
export const OPEN_DUE_STATUSES: readonly DueStatus[] = ['scheduled', 'reminded', 'followup_1', 'followup_2'];
export const isOpen = (status: DueStatus): boolean => OPEN_DUE_STATUSES.includes(status);

export const COLLECTION_MODES = ['manual_upi', 'payment_link'] as const;
export type CollectionMode = (typeof COLLECTION_MODES)[number];

export interface SubscriberDoc {
  /** `sub_` + time-ordered id (newest first sorts by `_id`). */
  _id: string;
  tenant_id: string;
  contact_id: string | null;
  contact_pending: boolean;
  name: string;
  /** E.164. */
  phone: string;
  email: string | null;
  plan_name: string;
  amount: number;
  currency: 'INR';
  cycle_unit: CycleUnit;
  cycle_days: number | null;
  due_day: number | null;
  start_date: string;
  status: SubscriberStatus;
  notes: string | null;
  tags: string[];
  next_due_date: string | null;
  last_paid_at: Date | null;
  collected_total: number;
  outstanding_total: number;
  dues_paid: number;
  dues_declined: number;
  /** The ticket of the recount whose totals these are (src/dues/totals.ts); absent on subscribers written before. */
  totals_ticket?: number;
  /** Why the setup sweep gave this subscriber up (src/dues/setupSweeper.ts); absent otherwise. Internal. */
  setup_failure?: SetupFailure;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** A create the sweep could not finish: the subscriber was cancelled and its phone released. */
export interface SetupFailure {
  /** `invalid_input`: the plan breaks a rule a later release enforces; `setup_failed`: a step kept failing. */
  reason: 'invalid_input' | 'setup_failed';
  message: string;
  at: Date;
}

export interface DueDoc {
  /** `due_` + 26 hex derived from the subscriber and the cycle index (see `dueIdFor`). */
  _id: string;
  tenant_id: string;
  subscriber_id: string;
  subscriber_name: string;
  phone: string;
  contact_id: string | null;
  /** The cycle index (0 = the start date). */
  cycle_index: number;
  period_label: string;
  amount: number;
  currency: 'INR';
  due_date: string;
  status: DueStatus;
  collection_mode: CollectionMode;
  payment_link: string | null;
  payment_link_id: string | null;
  payment_reference: string | null;
  paid_at: Date | null;
  paid_amount: number | null;
  /** `manual` or `gateway` once paid (the `source` of `payment.paid`). */
  paid_source: 'manual' | 'gateway' | null;
  marked_by: string | null;
  marked_by_name: string | null;
  reminders_sent: number;
  last_reminder_at: Date | null;
  next_action_at: Date | null;
  campaign_id: string | null;
  failure_reason: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** `<tenant>|<e164>`: whoever inserts it is the one subscriber of that phone. */
export interface SubscriberPhoneDoc {
  _id: string;
  tenant_id: string;
  subscriber_id: string;
  /** The create that claimed it (`setupRequestId`), or null without an Idempotency-Key: its retry resumes the setup. */
  request?: string | null;
  created_at: Date;
}

/**
 * A subscriber's setup not finished yet (`_id` = subscriber id): written before the phone is
 * claimed and deleted once the subscriber, its first dues, their chases and its cycle exist.
 * Never returned by the API. Holds what the setup needs, so a retry of the same create or the
 * worker's sweep (src/dues/setupSweeper.ts) can finish it. Kept apart from the subscribers so
 * the sweep reads a collection that is nearly always empty, never every subscriber.
 */
/** A subscriber as asked (campaigns-tickets-dues §4 POST subscribers): `start_date` null for today. */
export interface SubscriberInput {
  name: string;
  phone: string;
  email: string | null;
  plan_name: string;
  amount: number;
  cycle_unit: CycleUnit;
  cycle_days: number | null;
  due_day: number | null;
  start_date: string | null;
}

export interface SubscriberSetupDoc {
  _id: string;
  tenant_id: string;
  /** The create's identity (`setupRequestId`); null without an Idempotency-Key. */
  request: string | null;
  /** As asked, with the phone in E.164 and `start_date` resolved at the first attempt. */
  input: SubscriberInput & { start_date: string };
  created_at: Date;
}

/** `<due_id>:v<n>`: the claim of a due's version n (FerretDB's conditional updates are not atomic). */
export interface DueVersionDoc {
  _id: string;
  tenant_id: string;
  due_id: string;
  version: number;
  /** Whole top-level fields this version writes, so anyone can finish an abandoned claim. */
  set: Record<string, unknown>;
  created_at: Date;
}

/** `<subscriber_id>:t<n>`: recount n of the subscriber's totals, taken before it reads the dues (src/dues/totals.ts). */
export interface TotalsTicketDoc {
  _id: string;
  subscriber_id: string;
  ticket: number;
  created_at: Date;
}

export const totalsTicketId = (subscriberId: string, ticket: number): string => `${subscriberId}:t${ticket}`;

export function duesCollections(db: Db) {
  return {
    subscribers: db.collection<SubscriberDoc>('dues_subscribers'),
    dues: db.collection<DueDoc>('dues'),
    phones: db.collection<SubscriberPhoneDoc>('dues_subscriber_phones'),
    setups: db.collection<SubscriberSetupDoc>('dues_subscriber_setups'),
    versions: db.collection<DueVersionDoc>('due_versions'),
    totalsTickets: db.collection<TotalsTicketDoc>('dues_totals_tickets'),
  };
}

export const DUES_INDEXES: Record<string, IndexDescription[]> = {
  dues_subscribers: [{ key: { tenant_id: 1, _id: -1 }, name: 'tenant_newest' }],
  dues: [
    { key: { tenant_id: 1, due_date: -1, _id: -1 }, name: 'tenant_due_date' },
    { key: { subscriber_id: 1 }, name: 'subscriber' },
  ],
};

/** Derived from the subscriber and the cycle index, so raising the same cycle twice finds the same due. */
export function dueIdFor(subscriberId: string, cycleIndex: number): string {
  return `due_${createHash('sha256').update(`${subscriberId}\u0000${cycleIndex}`).digest('hex').slice(0, 26)}`;
}

export const DUE_ID_PATTERN = /^due_[0-9a-f]{26}$/;
export const SUBSCRIBER_ID_PATTERN = /^sub_[0-9a-f]{24}$/;

export function phoneClaimId(tenantId: string, phone: string): string {
  return `${tenantId}|${phone}`;
}

export async function findDue(db: Db, tenantId: string, dueId: string): Promise<DueDoc | null> {
  const due = await duesCollections(db).dues.findOne({ _id: dueId });
  return due?.tenant_id === tenantId ? due : null;
}

export async function findSubscriber(db: Db, tenantId: string, subscriberId: string): Promise<SubscriberDoc | null> {
  const sub = await duesCollections(db).subscribers.findOne({ _id: subscriberId });
  return sub?.tenant_id === tenantId ? sub : null;
}

/**
 * A page of the workspace's subscribers, newest first (`_id` descending: subscriber ids are
 * time-ordered); optionally one status, below a cursor's `_id`. Always the string range of
 * every subscriber id with the sort on `_id` alone: FerretDB's patched SQLite build then walks
 * its `_id` index from the newest down and stops once the page is full, where a filter on
 * `tenant_id` alone read every subscriber of every workspace (docs/decisions/performance.md,
 * "A year of data"). On MongoDB the same query uses `tenant_newest`.
 */
export async function subscribersPage(
  db: Db,
  tenantId: string,
  query: { status?: SubscriberStatus; beforeId?: string },
  limit: number,
): Promise<SubscriberDoc[]> {
  const ids = idRange('sub');
  const filter: Record<string, unknown> = { tenant_id: tenantId, ...(query.status ? { status: query.status } : {}) };
  filter._id = { $gt: ids.$gt, $lt: query.beforeId !== undefined && query.beforeId < ids.$lt ? query.beforeId : ids.$lt };
  return duesCollections(db).subscribers.find(filter).sort({ _id: -1 }).limit(limit).toArray();
}

export type DuesCollections = ReturnType<typeof duesCollections>;
export type { Collection };
