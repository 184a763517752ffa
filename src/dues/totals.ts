import type { Db } from 'mongodb';
import { duesCollections, isOpen, type DueDoc, type SubscriberDoc } from './store';

/**
 * The subscriber's totals (outstanding: the open dues; a declined, waived or cancelled due
 * is no longer collected), derived from its dues and written whole (`$set`, never `$inc`):
 * a retried or repeated recount writes the same values, so no change can be counted twice.
 * Recounted after every change to one of its dues.
 */
export async function recountSubscriber(db: Db, subscriberId: string, now: Date): Promise<SubscriberDoc | null> {
  const all = await duesCollections(db).dues.find({ subscriber_id: subscriberId }).toArray();
  return writeTotals(db, subscriberId, all, now);
}

/**
 * The same recount when the caller knows every due the subscriber has (a create, before its
 * cycle starts, knows its first dues): point reads by `_id`, which FerretDB answers from the
 * index, where the filter on `subscriber_id` scans every due of every subscriber.
 */
export async function recountSubscriberOf(db: Db, subscriberId: string, dueIds: readonly string[], now: Date): Promise<SubscriberDoc | null> {
  const { dues } = duesCollections(db);
  const found = await Promise.all(dueIds.map((id) => dues.findOne({ _id: id })));
  return writeTotals(db, subscriberId, found.filter((due): due is DueDoc => due?.subscriber_id === subscriberId), now);
}

async function writeTotals(db: Db, subscriberId: string, all: readonly DueDoc[], now: Date): Promise<SubscriberDoc | null> {
  const { subscribers } = duesCollections(db);
  let collected = 0;
  let outstanding = 0;
  let paid = 0;
  let declined = 0;
  let lastPaid: Date | null = null;
  let nextDue: string | null = null;
  for (const due of all) {
    if (due.status === 'paid') {
      paid += 1;
      collected += due.paid_amount ?? due.amount;
      if (due.paid_at && (!lastPaid || due.paid_at > lastPaid)) lastPaid = due.paid_at;
    } else if (due.status === 'declined') {
      declined += 1;
    } else if (isOpen(due.status)) {
      outstanding += due.amount;
      if (nextDue === null || due.due_date < nextDue) nextDue = due.due_date;
    }
  }
  return subscribers.findOneAndUpdate(
    { _id: subscriberId },
    {
      $set: {
        collected_total: round2(collected),
        outstanding_total: round2(outstanding),
        dues_paid: paid,
        dues_declined: declined,
        last_paid_at: lastPaid,
        next_due_date: nextDue,
        updated_at: now,
      },
    },
    { returnDocument: 'after' },
  );
}

const round2 = (n: number) => Math.round(n * 100) / 100;
