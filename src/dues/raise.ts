import type { Db } from 'mongodb';
import { collections } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { plannedSteps, stepTime } from './chasePlan';
import type { EventPublisher } from '../events';
import { dueDateOf, periodLabel } from './cycle';
import { readDuesSettings, type DuesSettings } from './settings';
import { dropDueEntriesNotOf, writeDueEntries } from './dueEntries';
import { duesCollections, dueIdFor, type DueDoc, type SubscriberDoc } from './store';
import { recountSubscriber } from './totals';
import { startChase, type WorkflowStarter } from './workflowStarts';

export interface RaiseDeps extends WorkflowStarter {
  db: Db;
  events: EventPublisher;
}

/** What raising a due reads besides the subscriber: the workspace's settings and zone. */
export interface RaiseContext {
  settings: DuesSettings;
  zone: string;
}

export async function readRaiseContext(db: Db, tenantId: string): Promise<RaiseContext> {
  const [settings, workspace] = await Promise.all([readDuesSettings(db, tenantId), collections(db).workspaces.findOne({ _id: tenantId })]);
  return { settings, zone: workspace?.timezone ?? 'UTC' };
}

/**
 * Raises the subscriber's due of cycle `index` (campaigns-tickets-dues §4, §6): the due
 * record, `payment.due_created`, its chase, the subscriber's totals. Safe to repeat: the
 * due's id derives from the subscriber and the index, the event's from the due, and the
 * chase's workflow id is the due's id, so a retry finds each one instead of adding another.
 */
export async function raiseDue(deps: RaiseDeps, subscriber: SubscriberDoc, index: number, now: Date, context?: RaiseContext): Promise<DueDoc> {
  const due = await raiseDueWithoutRecount(deps, subscriber, index, now, context ?? (await readRaiseContext(deps.db, subscriber.tenant_id)));
  await recountSubscriber(deps.db, subscriber._id, now);
  return due;
}

/**
 * `raiseDue` without the totals: for a caller raising several dues at once (a create), which
 * recounts once after the last. Safe to repeat, as `raiseDue`.
 */
export async function raiseDueWithoutRecount(deps: RaiseDeps, subscriber: SubscriberDoc, index: number, now: Date, { settings, zone }: RaiseContext): Promise<DueDoc> {
  const { dues } = duesCollections(deps.db);
  const dueDate = dueDateOf(subscriber, index);
  // When the reminder will go, as the chase will compute it (src/dues/chasePlan.ts).
  const reminderAt = stepTime('reminder', plannedSteps(dueDate, settings, zone).reminder, null, 0, now.getTime(), zone);
  const fresh: DueDoc = {
    _id: dueIdFor(subscriber._id, index),
    tenant_id: subscriber.tenant_id,
    subscriber_id: subscriber._id,
    subscriber_name: subscriber.name,
    phone: subscriber.phone,
    contact_id: subscriber.contact_id,
    cycle_index: index,
    period_label: periodLabel(subscriber.cycle_unit, dueDate),
    amount: subscriber.amount,
    currency: 'INR',
    due_date: dueDate,
    status: 'scheduled',
    collection_mode: settings.collection.mode,
    payment_link: null,
    payment_link_id: null,
    payment_reference: null,
    paid_at: null,
    paid_amount: null,
    paid_source: null,
    marked_by: null,
    marked_by_name: null,
    reminders_sent: 0,
    last_reminder_at: null,
    next_action_at: new Date(reminderAt),
    campaign_id: null,
    failure_reason: null,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  // Its list entries first (src/dues/dueEntries.ts): a crash here leaves entries without a due, never a due missing from its lists.
  await writeDueEntries(deps.db, [fresh]);
  const due = (await insertIfAbsent(dues, fresh)) ? fresh : ((await dues.findOne({ _id: fresh._id })) ?? fresh);
  if (due.status !== fresh.status) await dropDueEntriesNotOf(deps.db, fresh, due);
  await deps.events.publish({
    tenantId: due.tenant_id,
    type: 'payment.due_created',
    dedupeKey: `payment.due_created:${due._id}`,
    createdAt: due.created_at,
    data: { due_id: due._id, subscriber_id: due.subscriber_id, amount: due.amount, currency: due.currency, period: due.period_label, due_date: due.due_date },
  });
  await startChase(deps, due.tenant_id, due._id, due.subscriber_name);
  return due;
}
