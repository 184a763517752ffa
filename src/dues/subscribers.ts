import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { matchOrCreateContact, toE164 } from '../contacts';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { newId } from '../domain/ids';
import type { Logger } from '../observability/logger';
import { zoneDate } from './cycle';
import { DUES_LIMITS } from './limits';
import { fromPaise, toPaise } from './money';
import { PAYMENT_LINK_MIN_PAISE } from './paymentGateway';
import { raiseDueWithoutRecount, type RaiseDeps } from './raise';
import { readDuesSettings } from './settings';
import { duesCollections, findSubscriber, phoneClaimId, type SubscriberDoc, type SubscriberInput, type SubscriberSetupDoc } from './store';
import { recountSubscriber, recountSubscriberOf } from './totals';
import { startCycle } from './workflowStarts';

/**
 * Putting a customer on a recurring plan (campaigns-tickets-dues §4 POST subscribers): the
 * phone in E.164, one subscriber per phone (a claim: a unique insert), the person linked to a
 * contact when possible, the first two dues raised, and the cycle that raises the rest. A
 * create stopped short is finished by its retry or by the worker's sweep, never left half done.
 */


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
  /** The workspace collects by payment link and the amount is under the gateway's minimum (in rupees). */
  | { kind: 'below_link_minimum'; minimum: number }
  | { kind: 'duplicate'; subscriberId: string };

/** Who asked for a create, when the request carries an `Idempotency-Key`: a retry of it carries the same. */
export interface CreateRequest {
  keyId: string;
  idempotencyKey: string;
}

/**
 * A create's identity: the API key, its `Idempotency-Key` and what it asks (the phone in
 * E.164). The body is part of it because the key layer forgets a key whose request failed,
 * so a later request under the same key may ask something else.
 */
export function setupRequestId(tenantId: string, request: CreateRequest, input: SubscriberInput, phone: string): string {
  const asked = [input.name, phone, input.email, input.plan_name, input.amount, input.cycle_unit, input.cycle_days, input.due_day, input.start_date];
  return createHash('sha256').update(JSON.stringify([tenantId, request.keyId, request.idempotencyKey, asked])).digest('hex').slice(0, 32);
}

/** A phone claim with neither a setup nor a subscriber this long after was left by a process that died before setups were recorded. */
const PHONE_CLAIM_LEASE_MS = 60_000;

type SetupWorkspace = { _id: string; country: string; timezone: string };

/**
 * Records the setup, claims the phone, then finishes the setup. Whatever stops it after the
 * claim (a database step over its budget, Temporal unreachable, the process gone), the
 * setup record stays: the same create asked again (same key, same `Idempotency-Key`, same
 * body) finishes it and answers as the first would have; another create for the phone is a
 * duplicate; the worker's sweep finishes a setup nobody asks again for
 * (src/dues/setupSweeper.ts).
 */
export async function createSubscriber(
  deps: CreateSubscriberDeps,
  workspace: SetupWorkspace,
  input: SubscriberInput,
  now: Date,
  request?: CreateRequest,
): Promise<CreateSubscriberResult> {
  const phone = toE164(input.phone, workspace.country);
  if (!phone) return { kind: 'invalid_destination' };
  // Read only for an amount a link could not carry: no extra round trip for every other create.
  if (toPaise(input.amount) < PAYMENT_LINK_MIN_PAISE && (await readDuesSettings(deps.db, workspace._id)).collection.mode === 'payment_link') {
    return { kind: 'below_link_minimum', minimum: fromPaise(PAYMENT_LINK_MIN_PAISE) };
  }
  const { subscribers, phones, setups } = duesCollections(deps.db);
  const requestId = request ? setupRequestId(workspace._id, request, input, phone) : null;
  const setup: SubscriberSetupDoc = {
    _id: newId('sub', now),
    tenant_id: workspace._id,
    request: requestId,
    input: {
      name: input.name,
      phone,
      email: input.email,
      plan_name: input.plan_name,
      amount: input.amount,
      cycle_unit: input.cycle_unit,
      cycle_days: input.cycle_days,
      due_day: input.due_day,
      start_date: input.start_date ?? zoneDate(now, workspace.timezone),
    },
    created_at: now,
  };
  // The setup before the claim: a claim always has its setup or its subscriber, so nothing a claim promises can be lost.
  await setups.insertOne(setup);
  const claim = { _id: phoneClaimId(workspace._id, phone), tenant_id: workspace._id, subscriber_id: setup._id, request: requestId, created_at: now };
  if (await insertIfAbsent(phones, claim)) return { kind: 'created', subscriber: await finishSetup(deps, workspace, setup, now, 'first') };

  const holder = await phones.findOne({ _id: claim._id });
  // This attempt stalled past the sweep's grace, and the sweep claimed the phone for it.
  if (holder?.subscriber_id === setup._id) return { kind: 'created', subscriber: await finishSetup(deps, workspace, setup, now, 'again') };
  await setups.deleteOne({ _id: setup._id });
  if (!holder) return { kind: 'duplicate', subscriberId: '' };
  const theirs = await setups.findOne({ _id: holder.subscriber_id });
  if (requestId !== null && holder.request === requestId) {
    // This very create, asked again after it stopped short (or after it finished but its answer was lost).
    if (theirs) return { kind: 'created', subscriber: await finishSetup(deps, workspace, theirs, now, 'again') };
    const finished = await subscribers.findOne({ _id: holder.subscriber_id });
    if (finished) return { kind: 'created', subscriber: finished };
  }
  if (theirs) return { kind: 'duplicate', subscriberId: holder.subscriber_id };
  const existing = await findSubscriber(deps.db, workspace._id, holder.subscriber_id);
  if (existing || now.getTime() - holder.created_at.getTime() <= PHONE_CLAIM_LEASE_MS) return { kind: 'duplicate', subscriberId: holder.subscriber_id };
  // A claim left with neither (written before setups were recorded): this request finishes it under the claimed id.
  const takeover: SubscriberSetupDoc = { ...setup, _id: holder.subscriber_id, request: holder.request ?? null };
  await insertIfAbsent(setups, takeover);
  return { kind: 'created', subscriber: await finishSetup(deps, workspace, takeover, now, 'again') };
}

/**
 * The rest of a create, from its setup record: the subscriber (linked to a contact when the
 * directory can), its first dues with their events and chases, its totals, its cycle; then
 * the setup record goes. Each step finds what an earlier attempt did (the subscriber's id is
 * the setup's, due ids and event dedupe keys derive from it, workflow ids from those), so a
 * retry, the sweep and a slow first attempt may run it at once. `first`: this call claimed
 * the phone, so nothing else has run any step yet.
 */
export async function finishSetup(
  deps: CreateSubscriberDeps,
  workspace: SetupWorkspace,
  setup: SubscriberSetupDoc,
  now: Date,
  attempt: 'first' | 'again',
): Promise<SubscriberDoc> {
  const { subscribers, setups } = duesCollections(deps.db);
  const [subscriber, settings] = await Promise.all([
    (async () => (attempt === 'again' ? await subscribers.findOne({ _id: setup._id }) : null) ?? (await writeSubscriber(deps, workspace, setup, now)))(),
    // Read once for both dues (each due read it, and the workspace, before).
    readDuesSettings(deps.db, workspace._id),
  ]);
  const context = { settings, zone: workspace.timezone };
  const dueIds: string[] = [];
  for (let index = 0; index < DUES_LIMITS.duesRaisedAtCreate; index++) dueIds.push((await raiseDueWithoutRecount(deps, subscriber, index, now, context))._id);
  // Once for all of them. Before the cycle starts these are all the subscriber's dues, so a
  // first attempt reads them by id; an earlier attempt may have started the cycle, which may
  // have raised more, so a later one recounts them all.
  const counted =
    attempt === 'first' ? await recountSubscriberOf(deps.db, subscriber, dueIds, now) : await recountSubscriber(deps.db, subscriber._id, now);
  await startCycle(deps, workspace._id, subscriber._id, DUES_LIMITS.duesRaisedAtCreate, subscriber.name);
  await setups.deleteOne({ _id: setup._id });
  return counted ?? subscriber;
}

/** The subscriber a finished setup writes: active, nothing raised or paid yet. */
export function newSubscriberDoc(setup: SubscriberSetupDoc, contactId: string | null, now: Date): SubscriberDoc {
  return {
    _id: setup._id,
    tenant_id: setup.tenant_id,
    contact_id: contactId,
    contact_pending: contactId === null,
    ...setup.input,
    currency: 'INR',
    status: 'active',
    notes: null,
    tags: [],
    next_due_date: null,
    last_paid_at: null,
    collected_total: 0,
    outstanding_total: 0,
    dues_paid: 0,
    dues_declined: 0,
    totals_ticket: 0,
    version: 1,
    created_at: setup.created_at,
    updated_at: now,
  };
}

async function writeSubscriber(deps: CreateSubscriberDeps, workspace: SetupWorkspace, setup: SubscriberSetupDoc, now: Date): Promise<SubscriberDoc> {
  const { subscribers } = duesCollections(deps.db);
  const { input } = setup;
  let contactId: string | null = null;
  try {
    contactId = await (deps.linkContact ?? linkContact)(deps.db, workspace, { name: input.name, email: input.email, phone: input.phone }, now);
  } catch (err) {
    // Still created (§4): reminders go out; the link can be made later.
    deps.logger?.warn({ err, subscriberId: setup._id }, 'subscriber created without a contact: linking failed');
  }
  const subscriber = newSubscriberDoc(setup, contactId, now);
  if (await insertIfAbsent(subscribers, subscriber)) return subscriber;
  return (await subscribers.findOne({ _id: setup._id })) ?? subscriber;
}
