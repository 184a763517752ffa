import type { Db } from 'mongodb';
import { matchOrCreateContact } from '../contacts/contacts';
import { toE164 } from '../contacts/contactIdentity';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { newId } from '../domain/ids';
import type { Logger } from '../observability/logger';
import type { CycleUnit } from './cycle';
import { zoneDate } from './cycle';
import { DUES_LIMITS } from './limits';
import { raiseDue, type RaiseDeps } from './raise';
import { duesCollections, findSubscriber, phoneClaimId, type SubscriberDoc } from './store';
import { startCycle } from './workflowStarts';

/**
 * Putting a customer on a recurring plan (campaigns-tickets-dues §4 POST subscribers): the
 * phone in E.164, one subscriber per phone (a claim: a unique insert), the person linked to a
 * contact when possible, the first two dues raised, and the cycle that raises the rest.
 */

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

/** Links the person to a contact; throws when the directory cannot (unreachable, or two contacts). */
export type ContactLinker = (db: Db, workspace: { _id: string; country: string }, who: { name: string; email: string | null; phone: string }, now: Date) => Promise<string>;

export const linkContact: ContactLinker = async (db, workspace, who, now) => (await matchOrCreateContact(db, workspace, who, now)).contact._id;

export interface CreateSubscriberDeps extends RaiseDeps {
  db: Db;
  linkContact?: ContactLinker;
  logger?: Logger;
}

export type CreateSubscriberResult =
  | { kind: 'created'; subscriber: SubscriberDoc }
  | { kind: 'invalid_destination' }
  | { kind: 'duplicate'; subscriberId: string };

/** A phone claim whose subscriber never appeared this long after was left by a process that died. */
const PHONE_CLAIM_LEASE_MS = 60_000;

export async function createSubscriber(
  deps: CreateSubscriberDeps,
  workspace: { _id: string; country: string; timezone: string },
  input: SubscriberInput,
  now: Date,
): Promise<CreateSubscriberResult> {
  const phone = toE164(input.phone, workspace.country);
  if (!phone) return { kind: 'invalid_destination' };
  const { subscribers, phones } = duesCollections(deps.db);

  let subscriberId = newId('sub', now);
  const claim = { _id: phoneClaimId(workspace._id, phone), tenant_id: workspace._id, subscriber_id: subscriberId, created_at: now };
  if (!(await insertIfAbsent(phones, claim))) {
    const holder = await phones.findOne({ _id: claim._id });
    if (!holder) return { kind: 'duplicate', subscriberId: '' };
    const existing = await findSubscriber(deps.db, workspace._id, holder.subscriber_id);
    // A claim whose creator died before writing the subscriber: this request finishes it under the claimed id.
    if (existing || now.getTime() - holder.created_at.getTime() <= PHONE_CLAIM_LEASE_MS) return { kind: 'duplicate', subscriberId: holder.subscriber_id };
    subscriberId = holder.subscriber_id;
  }

  let contactId: string | null = null;
  try {
    contactId = await (deps.linkContact ?? linkContact)(deps.db, workspace, { name: input.name, email: input.email, phone }, now);
  } catch (err) {
    // Still created (§4): reminders go out; the link can be made later.
    deps.logger?.warn({ err, subscriberId }, 'subscriber created without a contact: linking failed');
  }

  const subscriber: SubscriberDoc = {
    _id: subscriberId,
    tenant_id: workspace._id,
    contact_id: contactId,
    contact_pending: contactId === null,
    name: input.name,
    phone,
    email: input.email,
    plan_name: input.plan_name,
    amount: input.amount,
    currency: 'INR',
    cycle_unit: input.cycle_unit,
    cycle_days: input.cycle_days,
    due_day: input.due_day,
    start_date: input.start_date ?? zoneDate(now, workspace.timezone),
    status: 'active',
    notes: null,
    tags: [],
    next_due_date: null,
    last_paid_at: null,
    collected_total: 0,
    outstanding_total: 0,
    dues_paid: 0,
    dues_declined: 0,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  if (!(await insertIfAbsent(subscribers, subscriber))) return { kind: 'duplicate', subscriberId };
  for (let index = 0; index < DUES_LIMITS.duesRaisedAtCreate; index++) await raiseDue(deps, subscriber, index, now);
  await startCycle(deps, workspace._id, subscriberId, DUES_LIMITS.duesRaisedAtCreate);
  return { kind: 'created', subscriber: (await findSubscriber(deps.db, workspace._id, subscriberId)) ?? subscriber };
}
