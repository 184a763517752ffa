import { RAISE_AHEAD_CYCLES } from './contracts';
import { parseDate, zoneDate } from './cycle';
import { fromPaise, toPaise } from './money';
import { isOpen, type DueDoc } from './store';

/**
 * Where a subscriber stands on a given day (the workspace's "today"): what is due now, what
 * is only scheduled, and why each due exists. `outstanding_total` counts every open due,
 * the ones not yet due included (the contract raises the next two at once so it is filled), so
 * on its own it reads as a debt twice the plan's amount; the console shows it split.
 */

/** An open due whose date is today or past is due now (`overdue` when past); a later one is scheduled; the rest are settled. */
export type DueStanding = 'overdue' | 'due_now' | 'scheduled' | 'settled';

export function dueStanding(due: Pick<DueDoc, 'status' | 'due_date'>, today: string): DueStanding {
  if (!isOpen(due.status)) return 'settled';
  if (due.due_date < today) return 'overdue';
  return due.due_date === today ? 'due_now' : 'scheduled';
}

export interface SubscriberStanding {
  /** Open dues dated today or earlier, in rupees. */
  due_now_total: number;
  due_now_count: number;
  /** Open dues dated after today: raised ahead, not owed yet. */
  scheduled_total: number;
  scheduled_count: number;
}

export function subscriberStanding(dues: readonly DueDoc[], today: string): SubscriberStanding {
  let dueNow = 0;
  let dueNowCount = 0;
  let scheduled = 0;
  let scheduledCount = 0;
  for (const due of dues) {
    const standing = dueStanding(due, today);
    if (standing === 'scheduled') {
      scheduled += toPaise(due.amount);
      scheduledCount += 1;
    } else if (standing !== 'settled') {
      dueNow += toPaise(due.amount);
      dueNowCount += 1;
    }
  }
  return { due_now_total: fromPaise(dueNow), due_now_count: dueNowCount, scheduled_total: fromPaise(scheduled), scheduled_count: scheduledCount };
}

/** Why the due exists, in words: raised with the subscriber, or by the cycle (on which day in the zone, and the rule). */
export function whyDueExists(due: Pick<DueDoc, 'cycle_index' | 'created_at'>, timeZone: string): string {
  const on = dayWords(zoneDate(due.created_at, timeZone));
  if (due.cycle_index < RAISE_AHEAD_CYCLES) {
    return `Raised on ${on} when the subscriber was added: a new subscriber's first two dues are raised at once, this one and the next.`;
  }
  return `Raised on ${on} by the plan's cycle: two dues falling today or later are always raised ahead, so each due date that passes raises the one two cycles on.`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `27 Nov 2026`, as the console shows dates. */
function dayWords(date: string): string {
  const d = parseDate(date);
  return `${d.day} ${MONTHS[d.month - 1]} ${d.year}`;
}
