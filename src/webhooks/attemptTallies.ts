import type { Collection, Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { sweepOldestFirst } from '../db/oldestFirst';

/**
 * An endpoint's attempts per hour and how many its receiver answered 2xx: the success rate the
 * console shows beside each endpoint. Counted by the endpoint's drain (one write per drain that
 * sent anything, src/webhooks/drain.ts), read by `_id` (the hours are known), so showing the
 * rate costs one `_id $in` read however many deliveries there were, instead of a scan of the
 * deliveries (every filter but `_id` scans on FerretDB's SQLite).
 */
export interface AttemptTallyDoc {
  /** `attemptTallyId(endpoint, hour)`. */
  _id: string;
  tenant_id: string;
  endpoint_id: string;
  /** The hour's start (UTC). */
  hour: Date;
  attempts: number;
  succeeded: number;
}

const HOUR_MS = 3_600_000;

/** The rate covers this many hours: the current one and the ones before it. */
export const SUCCESS_RATE_HOURS = 24;

export function attemptTallies(db: Db): Collection<AttemptTallyDoc> {
  return db.collection<AttemptTallyDoc>('webhook_attempt_tallies');
}

const hourOf = (at: Date): number => Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;

export function attemptTallyId(endpointId: string, hourStart: number): string {
  return `${endpointId}:${hourStart}`;
}

/**
 * Adds a drain's attempts to its hour. The one writer of an endpoint's tallies is its drain (one
 * at a time per endpoint), so `$inc`, which FerretDB does not make atomic between concurrent
 * writers, has none to race; a drain that dies after this write and runs again does not count
 * its recorded attempts twice (it sends, and counts, only attempts not yet recorded).
 */
export async function tallyAttempts(db: Db, who: { tenantId: string; endpointId: string }, counts: { attempts: number; succeeded: number }, at: Date): Promise<void> {
  if (counts.attempts === 0) return;
  const hour = hourOf(at);
  await attemptTallies(db).updateOne(
    { _id: attemptTallyId(who.endpointId, hour) },
    {
      $setOnInsert: { tenant_id: who.tenantId, endpoint_id: who.endpointId, hour: new Date(hour) },
      $inc: { attempts: counts.attempts, succeeded: counts.succeeded },
    },
    { upsert: true },
  );
}

export interface SuccessRate {
  /** Attempts in the window; 0 when the endpoint was sent nothing. */
  attempts: number;
  /** Of them, answered 2xx. */
  succeeded: number;
  /** The window's length. */
  hours: number;
}

/** Each endpoint's attempts and successes over the last SUCCESS_RATE_HOURS hours, in one read. */
export async function recentSuccessRates(db: Db, tenantId: string, endpointIds: readonly string[], now: Date): Promise<Map<string, SuccessRate>> {
  const current = hourOf(now);
  const ids = endpointIds.flatMap((endpoint) => Array.from({ length: SUCCESS_RATE_HOURS }, (_, i) => attemptTallyId(endpoint, current - i * HOUR_MS)));
  const rates = new Map<string, SuccessRate>(endpointIds.map((id) => [id, { attempts: 0, succeeded: 0, hours: SUCCESS_RATE_HOURS }]));
  for (const tally of await findByIds(attemptTallies(db), ids)) {
    const rate = rates.get(tally.endpoint_id);
    if (!rate || tally.tenant_id !== tenantId) continue;
    rate.attempts += tally.attempts;
    rate.succeeded += tally.succeeded;
  }
  return rates;
}

/** Deletes tallies older than `cutoff` from the collection's oldest end (the retention sweep; no TTL indexes on FerretDB). */
export function sweepOldTallies(db: Db, cutoff: Date, batch: { batchSize?: number; maxBatches?: number; pauseMs?: number; signal?: AbortSignal }): Promise<number> {
  return sweepOldestFirst<AttemptTallyDoc>(attemptTallies(db), { ...batch, projection: { _id: 1, hour: 1 }, mayGo: (t) => t.hour < cutoff });
}
