import type { Db } from 'mongodb';
import { sweepOldestFirst } from '../db/oldestFirst';
import { sendIntentsCollection, type SendIntentDoc } from '../messaging/sendIntents';
import { webhookDeliveries, type WebhookDeliveryDoc } from '../webhooks/deliveries';
import { eventsCollection, type EventDoc } from './eventStore';
import { periodicPass } from '../async/periodicPass';

/**
 * How long a stored event and each delivery of it (with its attempts) are kept: a week. The
 * retry schedule ends about 30 h after the first attempt, so no delivery still running loses
 * its event, and an event can be replayed from the console for a week (docs/webhooks.md).
 */
export const EVENT_RETENTION_DAYS = 7;
export const RETENTION_SWEEP_INTERVAL_MS = 10 * 60_000;

export interface RetentionOptions {
  db: Db;
  now?: () => Date;
  retentionMs?: number;
  batchSize?: number;
  maxBatches?: number;
}

/**
 * Deletes events and deliveries past the retention, from the oldest end of each collection,
 * a bounded number per pass (src/db/oldestFirst.ts): no TTL indexes on FerretDB. An event
 * still undispatched stays whatever its age (the dispatch sweeper owns it); a delivery past
 * the retention goes in any state, since none can still be retrying by then.
 */
export async function sweepExpiredEvents(options: RetentionOptions): Promise<{ events: number; deliveries: number }> {
  const cutoff = new Date((options.now ?? (() => new Date()))().getTime() - (options.retentionMs ?? EVENT_RETENTION_DAYS * 86_400_000));
  const batch = { batchSize: options.batchSize, maxBatches: options.maxBatches };
  const events = await sweepOldestFirst<EventDoc>(eventsCollection(options.db), {
    ...batch,
    projection: { _id: 1, created_at: 1, dispatched_at: 1 },
    mayGo: (event) => event.created_at < cutoff && event.dispatched_at !== null,
  });
  const deliveries = await sweepOldestFirst<WebhookDeliveryDoc>(webhookDeliveries(options.db), {
    ...batch,
    projection: { _id: 1, created_at: 1 },
    mayGo: (delivery) => delivery.created_at < cutoff,
  });
  return { events, deliveries };
}

/**
 * Deletes send intents whose send was recorded (`sent`) more than the retention ago, the same
 * way. By then the outbound message record stands for the send; the intent only answered
 * retries, and the idempotency window (24 h) is long closed. An intent still `sending` (its
 * outcome unknown) stays: it is what stops a retry from sending a second time.
 */
export async function sweepExpiredSendIntents(options: RetentionOptions): Promise<number> {
  const cutoff = new Date((options.now ?? (() => new Date()))().getTime() - (options.retentionMs ?? EVENT_RETENTION_DAYS * 86_400_000));
  return sweepOldestFirst<SendIntentDoc>(sendIntentsCollection(options.db), {
    batchSize: options.batchSize,
    maxBatches: options.maxBatches,
    projection: { _id: 1, created_at: 1, state: 1 },
    mayGo: (intent) => intent.state === 'sent' && intent.created_at < cutoff,
  });
}

/** Runs the retention sweep now and then every interval; a pass is never overlapped by the next. */
export function startRetentionSweeper(options: RetentionOptions & { intervalMs?: number; onError?: (err: unknown) => void }): { stop(): Promise<void> } {
  const sweeper = periodicPass(
    () => sweepExpiredEvents(options).then(() => sweepExpiredSendIntents(options)),
    options.intervalMs ?? RETENTION_SWEEP_INTERVAL_MS,
    options.onError ?? (() => undefined),
  );
  sweeper.start();
  return { stop: () => sweeper.stop() };
}
