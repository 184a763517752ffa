import type { Db } from 'mongodb';
import { sweepOldestFirst } from '../db/oldestFirst';
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

/** What is older than this is past the retention. */
export function retentionCutoff(options: Pick<RetentionOptions, 'now' | 'retentionMs'>): Date {
  return new Date((options.now ?? (() => new Date()))().getTime() - (options.retentionMs ?? EVENT_RETENTION_DAYS * 86_400_000));
}

/**
 * Deletes events past the retention, from the oldest end of the collection, a bounded number
 * per pass (src/db/oldestFirst.ts): no TTL indexes on FerretDB. An event still undispatched
 * stays whatever its age (the dispatch sweeper owns it). The webhook deliveries of events go
 * by the same retention in their own sweep (src/webhooks/deliveryRetention.ts), registered
 * by the composition roots like every feature's.
 */
export async function sweepExpiredEvents(options: RetentionOptions): Promise<{ events: number }> {
  const cutoff = retentionCutoff(options);
  const batch = { batchSize: options.batchSize, maxBatches: options.maxBatches };
  const events = await sweepOldestFirst<EventDoc>(eventsCollection(options.db), {
    ...batch,
    projection: { _id: 1, created_at: 1, dispatched_at: 1 },
    mayGo: (event) => event.created_at < cutoff && event.dispatched_at !== null,
  });
  return { events };
}

/** A feature's own sweep of records kept as long as the events (the composition roots register them). */
export type RetentionSweep = (options: RetentionOptions) => Promise<unknown>;

/**
 * Runs the retention sweep now and then every interval, then each feature's sweep registered
 * with it (`also`: the webhook deliveries, the messaging send intents); a pass is never overlapped by the next.
 */
export function startRetentionSweeper(options: RetentionOptions & { also?: readonly RetentionSweep[]; intervalMs?: number; onError?: (err: unknown) => void }): { stop(): Promise<void> } {
  const sweeper = periodicPass(
    async () => {
      await sweepExpiredEvents(options);
      for (const sweep of options.also ?? []) await sweep(options);
    },
    options.intervalMs ?? RETENTION_SWEEP_INTERVAL_MS,
    options.onError ?? (() => undefined),
  );
  sweeper.start();
  return { stop: () => sweeper.stop() };
}
