import { z } from 'zod';
import { DUES_LIMITS as L } from '../../../src/dues/limits';
import { duesSettingsSchema } from '../../../src/dues/settings';
import { DUE_STATUSES, SUBSCRIBER_STATUSES } from '../../../src/dues/store';
import { createSubscriberBody, dueRecord, markPaidBody, subscriberRecord } from '../../shared/dues.schema';
import { idParam } from '../deps';

/** Request and response shapes of the console's dues-app routes (private; docs/dues.md). */

/** The path parameters of one subscriber and of one due, below their workspace's. */
export const subscriberParam = { subscriber_id: idParam() };
export const dueParam = { due_id: idParam() };

/** A subscriber added in the console: the public request as it is (docs/dues.md). */
export const consoleCreateSubscriberBody = createSubscriberBody;

export const consoleSubscribersQuery = z.object({
  status: z.enum(SUBSCRIBER_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(L.listMaxLimit).default(50),
  cursor: z.string().min(1).max(2048).optional(),
});

export const consoleDuesQuery = z.object({
  subscriber_id: idParam().optional(),
  status: z.enum(DUE_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(L.listMaxLimit).default(50),
  cursor: z.string().min(1).max(2048).optional(),
});

/** A payment recorded in the console (`source` manual): the public body, with the version optional and who marked it. */
export const consolePaidBody = markPaidBody.extend({
  expected_version: z.number().int().min(1).nullable().default(null),
  marked_by_name: z.string().max(120).nullable().default(null),
});

/** A simulated gateway payment (what a payment-link provider's paid webhook does): no version, applied once. */
export const gatewayPaymentBody = markPaidBody.pick({ amount: true, reference: true });

/** What the chase of a due is doing: the next step and when, or how it ended (routes/dues.ts chaseView). */
export const chaseRecord = z.object({
  workflow_id: z.string(),
  state: z.enum(['running', 'ended']),
  next_step: z.string().nullable(),
  next_action_at: z.string().nullable(),
  reminders_sent: z.number().int(),
  ended_as: z.enum(DUE_STATUSES).nullable(),
  failure_reason: z.string().nullable(),
});

/** A due as the console shows it: the public record with its chase. */
export const consoleDueRecord = dueRecord.extend({ chase: chaseRecord });

/** How many of a subscriber's dues its page shows, latest due date first (open dues are the latest: a chase ends within weeks). */
export const SUBSCRIBER_PAGE_DUES = 100;

/**
 * One subscriber's page: the record, what is due now and what is only scheduled (the
 * workspace's today, named with its zone), and each due with its standing and why it exists.
 */
export const subscriberAccountRecord = z.object({
  subscriber: subscriberRecord,
  time_zone: z.string(),
  today: z.string(),
  due_now_total: z.number(),
  due_now_count: z.number().int(),
  scheduled_total: z.number(),
  scheduled_count: z.number().int(),
  dues: z.array(
    consoleDueRecord.extend({
      standing: z.enum(['overdue', 'due_now', 'scheduled', 'settled']),
      why: z.string(),
    }),
  ),
});

/**
 * The settings as answered: the stored settings, with the two follow-up intervals described
 * as an array of exactly two rather than a tuple. A tuple is `prefixItems` in OpenAPI 3.1,
 * which schemathesis cannot read in a response when hooks are loaded (schemathesis issue
 * #4099), and the fuzz run then stops at this route; the answer's bytes are the same.
 */
export const duesSettingsRecord = duesSettingsSchema.extend({
  followup_interval_days: z.array(z.number().int().min(1).max(60)).min(2).max(2),
});
