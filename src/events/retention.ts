import type { Db } from 'mongodb';
import { EVENT_RETENTION_DAYS } from '../config';
import { sweepOldestFirst } from '../db/oldestFirst';
import { eventsCollection, type EventDoc } from './eventStore';
import { periodicPass } from '../async/periodicPass';

export const RETENTION_SWEEP_INTERVAL_MS = 10 * 60_000;

export interface RetentionOptions {
  db: Db;
  now?: () => Date;
  retentionMs?: number;
  batchSize?: number;
  maxBatches?: number;
  /** The pause after each batch of deletes (src/db/idRangeSweep.ts `SweepPace`). */
  pauseMs?: number;
  /** Set when the process stops: a pass ends between batches. */
  signal?: AbortSignal;
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
  const batch = { batchSize: options.batchSize, maxBatches: options.maxBatches, pauseMs: options.pauseMs, signal: options.signal };
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
  const stopping = new AbortController();
  const passOptions = { ...options, signal: stopping.signal };
  const sweeper = periodicPass(
    async () => {
      await sweepExpiredEvents(passOptions);
      for (const sweep of options.also ?? []) {
        if (stopping.signal.aborted) break;
        await sweep(passOptions);
      }
    },
    options.intervalMs ?? RETENTION_SWEEP_INTERVAL_MS,
    options.onError ?? (() => undefined),
  );
  sweeper.start();
  return {
    stop: () => {
      stopping.abort();
      return sweeper.stop();
    },
  };
}
