import { sweepOldestFirst } from '../db/oldestFirst';
import { retentionCutoff, type RetentionOptions } from '../events';
import { sweepOldTallies } from './attemptTallies';
import { webhookDeliveries, type WebhookDeliveryDoc } from './deliveries';

/**
 * Deletes deliveries (and the endpoints' hourly attempt tallies) past their retention
 * (`retentionMs`: DELIVERY_RETENTION_DAYS from the worker, else the events'), from the oldest
 * end of the collection, a bounded number per pass in paced batches of `BULK_WRITE_MAX`
 * (src/db/oldestFirst.ts): no TTL indexes on FerretDB, and a delivery's id (its event's and
 * endpoint's) is not time-ordered, so no `_id` range finds the old ones. A delivery past
 * the retention goes in any state, since none can still be retrying by then. The composition
 * roots register it with the retention sweeper (src/events/retention.ts).
 */
export async function sweepExpiredDeliveries(options: RetentionOptions): Promise<{ deliveries: number; tallies: number }> {
  const cutoff = retentionCutoff(options);
  const pace = { batchSize: options.batchSize, maxBatches: options.maxBatches, pauseMs: options.pauseMs, signal: options.signal };
  const deliveries = await sweepOldestFirst<WebhookDeliveryDoc>(webhookDeliveries(options.db), {
    ...pace,
    projection: { _id: 1, created_at: 1 },
    mayGo: (delivery) => delivery.created_at < cutoff,
  });
  // The endpoints' hourly attempt counts go with the deliveries they counted.
  const tallies = await sweepOldTallies(options.db, cutoff, pace);
  return { deliveries, tallies };
}
