import type { Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { fromPaise, toPaise } from './money';
import { duesCollections, isOpen, totalsTicketId, type DueDoc, type SubscriberDoc } from './store';

/**
 * The subscriber's totals (outstanding: the open dues; a declined, waived or cancelled due
 * is no longer collected), derived from its dues and written whole (`$set`, never `$inc`):
 * a retried or repeated recount writes the same values, so no change can be counted twice.
 * Recounted after every change to one of its dues; sums are added in paise (src/dues/money.ts).
 *
 * Two recounts of one subscriber may overlap (a payment's and the cycle's raise), and the one
 * that read the dues first may write last. So each recount first takes the subscriber's next
 * ticket (`<subscriber_id>:t<n>`, a unique insert, so tickets are taken in order, one each),
 * then reads the dues; it writes only if no ticket n + 1 exists yet, and then only over an
 * older ticket's totals. FerretDB checks that condition by reading then writing, so a stale
 * write can still land after a newer one; the stale writer finds it out, because ticket n + 1
 * exists once its write is done, and counts again. Why the last write is the newest count:
 * the recount holding the highest ticket m took it after the last change to a due (it was
 * started by that change, or later) and read after taking it, so it counted every change, and
 * it writes (nothing above it exists). Any write by a lower ticket j landing after m's would
 * find ticket j + 1 <= m taken and count again under a ticket above m, which cannot be. A
 * recount that finds a later ticket before writing leaves the writing to it, so a burst of
 * recounts ends in one write rather than each counting again. Tickets are kept (one small
 * record a recount, as the dues' version claims are), since a missing n + 1 would read as
 * "no later recount". */

/** More rounds than this means the subscriber's dues kept changing under every count: the caller's step is retried. */
const MAX_ROUNDS = 10;

export async function recountSubscriber(db: Db, subscriberId: string, now: Date): Promise<SubscriberDoc | null> {
  return recount(db, subscriberId, () => duesOf(db, subscriberId), now, null);
}

/**
 * The same recount when the caller knows every due the subscriber has (a create, before its
 * cycle starts, knows its first dues) and the subscriber's last ticket: point reads by `_id`,
 * which FerretDB answers from the index, where the filter on `subscriber_id` scans every due
 * of every subscriber. A round after the first reads them all, as `recountSubscriber` does.
 */
export async function recountSubscriberOf(db: Db, subscriber: SubscriberDoc, dueIds: readonly string[], now: Date): Promise<SubscriberDoc | null> {
  const { dues } = duesCollections(db);
  const read = async () => {
    const found = await Promise.all(dueIds.map((id) => dues.findOne({ _id: id })));
    return found.filter((due): due is DueDoc => due?.subscriber_id === subscriber._id);
  };
  return recount(db, subscriber._id, read, now, subscriber.totals_ticket ?? 0);
}

const duesOf = (db: Db, subscriberId: string) => duesCollections(db).dues.find({ subscriber_id: subscriberId }).toArray();

async function recount(
  db: Db,
  subscriberId: string,
  readDues: () => Promise<DueDoc[]>,
  now: Date,
  lastTicket: number | null,
): Promise<SubscriberDoc | null> {
  const { subscribers, totalsTickets } = duesCollections(db);
  const later = async (ticket: number) => (await totalsTickets.findOne({ _id: totalsTicketId(subscriberId, ticket + 1) })) !== null;
  let read = readDues;
  let after = lastTicket;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const ticket = await takeTicket(db, subscriberId, after, now);
    if (ticket === null) return null;
    const totals = countTotals(await read());
    // A later recount exists: it read after this one's ticket, so after the change this one
    // counts for, and it (or one later still) writes. Writing would only race it.
    if (await later(ticket)) return subscribers.findOne({ _id: subscriberId });
    const written = await writeTotals(db, subscriberId, ticket, totals, now);
    // Skipped: a later ticket's totals were already there, and this recount wrote nothing.
    if (!written) return subscribers.findOne({ _id: subscriberId });
    // A later recount took its ticket after the check above and may have written before this
    // write landed (FerretDB's condition is read before the write): count again, over it.
    if (!(await later(ticket))) return written;
    read = () => duesOf(db, subscriberId);
    after = ticket + 1;
  }
  throw new Error(`subscriber ${subscriberId}: its dues kept changing under ${MAX_ROUNDS} recounts`);
}

/** The subscriber's next ticket, from the last one it knows of (or its stored one); null when the subscriber is gone. */
async function takeTicket(db: Db, subscriberId: string, lastKnown: number | null, now: Date): Promise<number | null> {
  const { subscribers, totalsTickets } = duesCollections(db);
  let ticket = lastKnown;
  if (ticket === null) {
    const subscriber = await subscribers.findOne({ _id: subscriberId }, { projection: { totals_ticket: 1 } });
    if (!subscriber) return null;
    ticket = subscriber.totals_ticket ?? 0;
  }
  for (;;) {
    ticket += 1;
    if (await insertIfAbsent(totalsTickets, { _id: totalsTicketId(subscriberId, ticket), subscriber_id: subscriberId, ticket, created_at: now })) return ticket;
  }
}

type Totals = Pick<SubscriberDoc, 'collected_total' | 'outstanding_total' | 'dues_paid' | 'dues_declined' | 'last_paid_at' | 'next_due_date'>;

export function countTotals(all: readonly DueDoc[]): Totals {
  let collected = 0;
  let outstanding = 0;
  let paid = 0;
  let declined = 0;
  let lastPaid: Date | null = null;
  let nextDue: string | null = null;
  for (const due of all) {
    if (due.status === 'paid') {
      paid += 1;
      collected += toPaise(due.paid_amount ?? due.amount);
      if (due.paid_at && (!lastPaid || due.paid_at > lastPaid)) lastPaid = due.paid_at;
    } else if (due.status === 'declined') {
      declined += 1;
    } else if (isOpen(due.status)) {
      outstanding += toPaise(due.amount);
      if (nextDue === null || due.due_date < nextDue) nextDue = due.due_date;
    }
  }
  return {
    collected_total: fromPaise(collected),
    outstanding_total: fromPaise(outstanding),
    dues_paid: paid,
    dues_declined: declined,
    last_paid_at: lastPaid,
    next_due_date: nextDue,
  };
}

/** The totals of ticket `ticket`, unless a later ticket's are there; null when skipped (or the subscriber is gone). */
function writeTotals(db: Db, subscriberId: string, ticket: number, totals: Totals, now: Date): Promise<SubscriberDoc | null> {
  return duesCollections(db).subscribers.findOneAndUpdate(
    // Subscribers written before tickets have none.
    { _id: subscriberId, $or: [{ totals_ticket: { $lt: ticket } }, { totals_ticket: { $exists: false } }] },
    { $set: { ...totals, totals_ticket: ticket, updated_at: now } },
    { returnDocument: 'after' },
  );
}
