import { sweepOldestFirst } from '../db/oldestFirst';
import { retentionCutoff, type RetentionOptions } from '../events';
import { sweepOldTallies } from './attemptTallies';
import { webhookDeliveries, type WebhookDeliveryDoc } from './deliveries';
import { deliveryEntries, deliveryStatusEntries, type DeliveryEntryDoc } from './deliveryEntries';

/**
 * Deletes deliveries (and the endpoints' hourly attempt tallies and the deliveries' list entries) past their retention
 * (`retentionMs`: DELIVERY_RETENTION_DAYS from the worker, else the events'), from the oldest
 * end of the collection, a bounded number per pass in paced batches of `BULK_WRITE_MAX`
 * (src/db/oldestFirst.ts): no TTL indexes on FerretDB, and a delivery's id (its event's and
 * endpoint's) is not time-ordered, so no `_id` range finds the old ones. A delivery past
 * the retention goes in any state, since none can still be retrying by then. The composition
 * roots register it with the retention sweeper (src/events/retention.ts).
 */
export async function sweepExpiredDeliveries(options: RetentionOptions): Promise<{ deliveries: number; tallies: number; entries: number }> {
  const cutoff = retentionCutoff(options);
  const pace = { batchSize: options.batchSize, maxBatches: options.maxBatches, pauseMs: options.pauseMs, signal: options.signal };
  const deliveries = await sweepOldestFirst<WebhookDeliveryDoc>(webhookDeliveries(options.db), {
    ...pace,
    projection: { _id: 1, created_at: 1 },
    mayGo: (delivery) => delivery.created_at < cutoff,
  });
  // The endpoints' hourly attempt counts go with the deliveries they counted.
  const tallies = await sweepOldTallies(options.db, cutoff, pace);
  // And the list's entries (src/webhooks/deliveryEntries.ts): the list skips an entry without its
  // record, but would walk through every one left behind.
  let entries = 0;
  for (const collection of [deliveryEntries(options.db), deliveryStatusEntries(options.db)]) {
    entries += await sweepOldestFirst<DeliveryEntryDoc>(collection, {
      ...pace,
      projection: { _id: 1, created_at: 1 },
      mayGo: (entry) => entry.created_at < cutoff,
    });
  }
  return { deliveries, tallies, entries };
}
