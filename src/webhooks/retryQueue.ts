import type { Collection, Db } from 'mongodb';
import type { DeliveryTrigger } from './deliveries';

/**
 * An endpoint's retry queues in MongoDB: one entry per delivery waiting for its next
 * attempt, `_id` = `webhookQueueEntryId(endpoint, attempt, seq)` (src/webhooks/contracts.ts).
 * The endpoint's workflow keeps each queue's head and tail, so a drain reads entries by
 * `_id` alone (the one read FerretDB on SQLite answers from an index) and never filters or
 * scans this collection; a drained entry is deleted, so the collection holds only waiting
 * deliveries. One writer per endpoint (its workflow's drains, one at a time), so sequence
 * numbers need no claims.
 */
export interface WebhookQueueEntryDoc {
  _id: string;
  endpoint_id: string;
  delivery_id: string;
  event_id: string;
  trigger: DeliveryTrigger;
  /** The attempt this entry waits for (1: a new delivery parked untried). */
  attempt: number;
  /** When that attempt falls due (the previous attempt's end plus the schedule's delay). */
  due_at: Date;
}

export function webhookQueue(db: Db): Collection<WebhookQueueEntryDoc> {
  return db.collection<WebhookQueueEntryDoc>('webhook_queue');
}
