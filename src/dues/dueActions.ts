import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { EventPublisher } from '../events';
import type { Logger } from '../observability/logger';
import { dueChaseWorkflowId, duesCycleWorkflowId, endCycleSignal, stopChaseSignal } from './contracts';
import { changeDue } from './dueVersions';
import { duesCollections, findDue, findSubscriber, isOpen, OPEN_DUE_STATUSES, type DueDoc, type SubscriberDoc } from './store';
import { paymentChanged, wrongStatus, type DueRefusal } from './refusal';
import { recountSubscriber } from './totals';

/**
 * A due settled, waived or cancelled, and a subscriber paused, resumed or cancelled
 * (campaigns-tickets-dues §3, §4). Each due change takes the due's next version
 * (src/dues/dueVersions.ts), then the chase is told to stop and the subscriber recounted.
 */

export interface DueActionDeps {
  db: Db;
  temporal: Client;
  events: EventPublisher;
  logger?: Logger;
}

/** Tells the chase to stop; a chase already ended (or never started) needs nothing. */
export async function stopChase(temporal: Client, dueId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(dueChaseWorkflowId(dueId)).signal(stopChaseSignal);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

export interface PaymentInput {
  expectedVersion: number | null;
  amount: number | null;
  reference: string | null;
  paidAt: Date;
  source: 'manual' | 'gateway';
  markedBy: string | null;
  markedByName: string | null;
}

export type PaymentResult =
  | { kind: 'paid'; due: DueDoc }
  | { kind: 'not_found' }
  /** A stale `expected_version` (or a version lost to other writers ten times), or a due no longer open. */
  | { kind: 'refused'; refusal: DueRefusal };

/**
 * Marks a due paid. Checks, in the contract's order: the due exists, `expected_version`
 * (when given) matches, the due is open. Then the version is claimed (a parallel payment of
 * the same due loses with a version conflict), the subscriber recounted, the chase stopped,
 * `payment.paid` fired; the stopped chase sends the receipt when configured.
 */
export async function recordPayment(deps: DueActionDeps, tenantId: string, dueId: string, input: PaymentInput, now: Date): Promise<PaymentResult> {
  let due = await findDue(deps.db, tenantId, dueId);
  if (!due) return { kind: 'not_found' };
  if (input.expectedVersion !== null && input.expectedVersion !== due.version) return { kind: 'refused', refusal: paymentChanged(due.version) };
  const set: Partial<DueDoc> = {
    status: 'paid',
    paid_at: input.paidAt,
    paid_amount: input.amount ?? due.amount,
    paid_source: input.source,
    payment_reference: input.reference,
    marked_by: input.markedBy,
    marked_by_name: input.markedByName,
    next_action_at: null,
  };
  // Without a version (a gateway's notice) the payment applies to whatever version is current,
  // so a chase step landing first only makes it try again; with one, another writer is a 409.
  for (let round = 0; ; round++) {
    // The contract's sentence is "already paid" whatever closed the due.
    if (!isOpen(due.status)) return { kind: 'refused', refusal: wrongStatus('This payment is already paid.', due.status) };
    const changed = await changeDue(deps.db, due, set, now);
    if (changed.kind === 'written') {
      due = changed.due;
      break;
    }
    // The winner may have claimed its version without having written it yet: it is at least one ahead.
    if (input.expectedVersion !== null || round >= 10) return { kind: 'refused', refusal: paymentChanged(Math.max(changed.current.version, due.version + 1)) };
    due = changed.current;
  }
  const paid = due;
  await recountSubscriber(deps.db, paid.subscriber_id, now);
  await stopChase(deps.temporal, paid._id);
  await deps.events.publish({
    tenantId,
    type: 'payment.paid',
    dedupeKey: `payment.paid:${paid._id}`,
    createdAt: now,
    data: { due_id: paid._id, subscriber_id: paid.subscriber_id, amount: paid.paid_amount, period: paid.period_label, reference: paid.payment_reference, source: input.source },
  });
  // The chase, told to stop, sends the receipt when the settings ask for one (workflows/dues/dueChase.ts).
  return { kind: 'paid', due: paid };
}

export type CloseResult = { kind: 'closed'; due: DueDoc } | { kind: 'not_found' } | { kind: 'refused'; refusal: DueRefusal };

/** Console: the business will not collect (`waived`), or the payment is no longer owed (`cancelled`). */
export async function closeDue(deps: DueActionDeps, tenantId: string, dueId: string, to: 'waived' | 'cancelled', now: Date): Promise<CloseResult> {
  let due = await findDue(deps.db, tenantId, dueId);
  for (let round = 0; due && round < 5; round++) {
    if (!isOpen(due.status)) return { kind: 'refused', refusal: wrongStatus(`This payment is already ${due.status}.`, due.status) };
    const changed = await changeDue(deps.db, due, { status: to, next_action_at: null }, now);
    if (changed.kind === 'written') {
      await recountSubscriber(deps.db, due.subscriber_id, now);
      await stopChase(deps.temporal, due._id);
      return { kind: 'closed', due: changed.due };
    }
    due = changed.current;
  }
  return { kind: 'not_found' };
}

export type SubscriberAction = 'pause' | 'resume' | 'cancel';
const TARGET: Record<SubscriberAction, SubscriberDoc['status']> = { pause: 'paused', resume: 'active', cancel: 'cancelled' };
/** From which statuses each action applies; anything else is refused with the current status. */
const FROM: Record<SubscriberAction, SubscriberDoc['status'][]> = { pause: ['active', 'paused'], resume: ['paused', 'active'], cancel: ['active', 'paused', 'cancelled'] };

export type SubscriberActionResult = { kind: 'done'; subscriber: SubscriberDoc } | { kind: 'not_found' } | { kind: 'refused'; refusal: DueRefusal };

const DONE: Record<SubscriberAction, string> = { pause: 'paused', resume: 'resumed', cancel: 'cancelled' };

/**
 * Console: pause (no new dues are raised; dues already raised are still chased), resume, or
 * cancel (the cycle ends and every open due is cancelled). Repeating an action changes nothing.
 */
export async function changeSubscriber(deps: DueActionDeps, tenantId: string, subscriberId: string, action: SubscriberAction, now: Date): Promise<SubscriberActionResult> {
  const subscriber = await findSubscriber(deps.db, tenantId, subscriberId);
  if (!subscriber) return { kind: 'not_found' };
  if (!FROM[action].includes(subscriber.status)) {
    return { kind: 'refused', refusal: wrongStatus(`A ${subscriber.status} subscriber cannot be ${DONE[action]}.`, subscriber.status) };
  }
  const { subscribers, dues } = duesCollections(deps.db);
  const status = TARGET[action];
  if (subscriber.status !== status) {
    await subscribers.updateOne({ _id: subscriberId }, { $set: { status, version: subscriber.version + 1, updated_at: now } });
  }
  if (action === 'cancel') {
    try {
      await deps.temporal.workflow.getHandle(duesCycleWorkflowId(subscriberId)).signal(endCycleSignal);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    const open = await dues.find({ subscriber_id: subscriberId, status: { $in: [...OPEN_DUE_STATUSES] } }).toArray();
    for (const due of open) await closeDue(deps, tenantId, due._id, 'cancelled', now);
    await recountSubscriber(deps.db, subscriberId, now);
  }
  return { kind: 'done', subscriber: (await findSubscriber(deps.db, tenantId, subscriberId))! };
}
