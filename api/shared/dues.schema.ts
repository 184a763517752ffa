import { z } from 'zod';
import { isPlausibleEmail, normaliseEmail } from '../../src/contacts/contactIdentity';
import { CYCLE_UNITS, isCalendarDate } from '../../src/dues/cycle';
import { AMOUNT_MESSAGE, START_DATE_MESSAGE, startDateInRange } from '../../src/dues/inputRules';
import { DUES_LIMITS as L } from '../../src/dues/limits';
import { isWholePaise } from '../../src/dues/money';
import { COLLECTION_MODES, DUE_ID_PATTERN, DUE_STATUSES, SUBSCRIBER_STATUSES, type DueDoc, type SubscriberDoc } from '../../src/dues/store';
import { formatTimestamp } from '../format';
import { pageQuery } from '../pagination';

/** Request and response shapes of the dues app's routes (campaigns-tickets-dues §2, §4, §8). */

const calendarDate = z.string().refine(isCalendarDate, { error: 'expected a date YYYY-MM-DD', abort: true });
/** A date the cycle math carries (src/dues/inputRules.ts). */
const startDate = calendarDate.refine(startDateInRange, START_DATE_MESSAGE);

/** Rupees in whole paise, at least 0.01, at most the limit (src/dues/money.ts): the one amount rule of every dues body. */
export const rupees = z.number().min(L.amountMin, { abort: true }).max(L.amountMax, { abort: true }).refine(isWholePaise, AMOUNT_MESSAGE);

export const createSubscriberBody = z
  .object({
    name: z.string().min(1).max(L.nameMaxChars),
    phone: z.string().min(L.phoneMinChars).max(L.phoneMaxChars),
    email: z
      .string()
      .max(L.emailMaxChars)
      .refine((v) => isPlausibleEmail(normaliseEmail(v)), 'expected an email address, e.g. name@example.com')
      .transform(normaliseEmail)
      .nullable()
      .default(null),
    plan_name: z.string().min(1).max(L.planNameMaxChars).default('Monthly plan'),
    amount: rupees,
    cycle_unit: z.enum(CYCLE_UNITS).default('monthly'),
    cycle_days: z.number().int().min(L.cycleDaysMin).max(L.cycleDaysMax).nullable().default(null),
    due_day: z.number().int().min(L.dueDayMin).max(L.dueDayMax).nullable().default(null),
    start_date: startDate.nullable().default(null),
  })
  .refine((b) => b.cycle_unit !== 'custom_days' || b.cycle_days !== null, { message: 'cycle_days is required for custom_days.', path: ['cycle_days'] });

export const listSubscribersQuery = pageQuery(L.listMaxLimit, L.listDefaultLimit);

export const DUE_SCOPES = ['open', 'overdue', 'upcoming', 'paid'] as const;
export type DueScope = (typeof DUE_SCOPES)[number];

export const listDuesQuery = pageQuery(L.listMaxLimit, L.listDefaultLimit).extend({
  scope: z.enum(DUE_SCOPES).optional(),
  status: z.enum(DUE_STATUSES).optional(),
});

export const dueParams = z.object({ due_id: z.string().regex(DUE_ID_PATTERN) });

export const markPaidBody = z.object({
  expected_version: z.number().int().min(1),
  amount: rupees.nullable().default(null),
  reference: z.string().max(L.referenceMaxChars).nullable().default(null),
  paid_at: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s))
    .nullable()
    .default(null),
});

const money = z.number();
const count = z.number().int();

export const subscriberRecord = z.object({
  subscriber_id: z.string(),
  tenant_id: z.string(),
  contact_id: z.string().nullable(),
  contact_pending: z.boolean(),
  name: z.string(),
  phone: z.string(),
  email: z.string().nullable(),
  plan_name: z.string(),
  amount: money,
  currency: z.literal('INR'),
  cycle_unit: z.enum(CYCLE_UNITS),
  cycle_days: count.nullable(),
  due_day: count.nullable(),
  start_date: z.string(),
  status: z.enum(SUBSCRIBER_STATUSES),
  notes: z.string().nullable(),
  tags: z.array(z.string()),
  next_due_date: z.string().nullable(),
  last_paid_at: z.string().nullable(),
  collected_total: money,
  outstanding_total: money,
  dues_paid: count,
  dues_declined: count,
  version: count,
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export const dueRecord = z.object({
  due_id: z.string(),
  tenant_id: z.string(),
  subscriber_id: z.string(),
  subscriber_name: z.string(),
  phone: z.string(),
  contact_id: z.string().nullable(),
  period_label: z.string(),
  amount: money,
  currency: z.literal('INR'),
  due_date: z.string(),
  status: z.enum(DUE_STATUSES),
  collection_mode: z.enum(COLLECTION_MODES),
  payment_link: z.string().nullable(),
  payment_link_id: z.string().nullable(),
  payment_reference: z.string().nullable(),
  paid_at: z.string().nullable(),
  paid_amount: money.nullable(),
  marked_by: z.string().nullable(),
  marked_by_name: z.string().nullable(),
  reminders_sent: count,
  last_reminder_at: z.string().nullable(),
  next_action_at: z.string().nullable(),
  campaign_id: z.string().nullable(),
  failure_reason: z.string().nullable(),
  version: count,
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export function subscriberView(s: SubscriberDoc): z.infer<typeof subscriberRecord> {
  return {
    subscriber_id: s._id,
    tenant_id: s.tenant_id,
    contact_id: s.contact_id,
    contact_pending: s.contact_pending,
    name: s.name,
    phone: s.phone,
    email: s.email,
    plan_name: s.plan_name,
    amount: s.amount,
    currency: s.currency,
    cycle_unit: s.cycle_unit,
    cycle_days: s.cycle_days,
    due_day: s.due_day,
    start_date: s.start_date,
    status: s.status,
    notes: s.notes,
    tags: s.tags,
    next_due_date: s.next_due_date,
    last_paid_at: formatTimestamp(s.last_paid_at),
    collected_total: s.collected_total,
    outstanding_total: s.outstanding_total,
    dues_paid: s.dues_paid,
    dues_declined: s.dues_declined,
    version: s.version,
    created_at: formatTimestamp(s.created_at),
    updated_at: formatTimestamp(s.updated_at),
  };
}

export function dueView(d: DueDoc): z.infer<typeof dueRecord> {
  return {
    due_id: d._id,
    tenant_id: d.tenant_id,
    subscriber_id: d.subscriber_id,
    subscriber_name: d.subscriber_name,
    phone: d.phone,
    contact_id: d.contact_id,
    period_label: d.period_label,
    amount: d.amount,
    currency: d.currency,
    due_date: d.due_date,
    status: d.status,
    collection_mode: d.collection_mode,
    payment_link: d.payment_link,
    payment_link_id: d.payment_link_id,
    payment_reference: d.payment_reference,
    paid_at: formatTimestamp(d.paid_at),
    paid_amount: d.paid_amount,
    marked_by: d.marked_by,
    marked_by_name: d.marked_by_name,
    reminders_sent: d.reminders_sent,
    last_reminder_at: formatTimestamp(d.last_reminder_at),
    next_action_at: formatTimestamp(d.next_action_at),
    campaign_id: d.campaign_id,
    failure_reason: d.failure_reason,
    version: d.version,
    created_at: formatTimestamp(d.created_at),
    updated_at: formatTimestamp(d.updated_at),
  };
}
