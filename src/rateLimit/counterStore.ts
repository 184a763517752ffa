import type { Db } from 'mongodb';

/** Counts requests per key per window; shared by every API replica. */
export interface CounterStore {
  /**
   * Adds one to the window's count and returns the count including this request. Past
   * `ceiling` the store may stop counting exactly and answer any number above it.
   */
  increment(key: string, windowStart: number, expiresAt: Date, ceiling?: number): Promise<number>;
}

interface CounterClaimDoc {
  /** `<key>:<window>:<n>`: the window's n-th request. */
  _id: string;
  expires_at: Date;
}

/**
 * Counts in MongoDB shared by every API replica. Each request claims the next number of
 * its key's window by inserting `<key>:<window>:<n>`: FerretDB 1.x loses concurrent `$inc`s
 * (docs/decisions.md) but never lets two inserts of one `_id` succeed, so no two requests
 * get the same number. A per-process hint of the last number makes the usual claim a single
 * insert. Past the ceiling nothing more is written. No TTL indexes on FerretDB: `sweep`
 * deletes windows that have ended.
 */
export class MongoCounterStore implements CounterStore {
  private readonly claims;
  private readonly lastClaimed = new Map<string, { n: number; expiresAt: number }>();

  constructor(db: Db, private readonly timeoutMs = 250) {
    this.claims = db.collection<CounterClaimDoc>('rate_limit_claims');
  }

  async increment(key: string, windowStart: number, expiresAt: Date, ceiling = Number.MAX_SAFE_INTEGER): Promise<number> {
    const window = `${key}:${windowStart}`;
    let n = (this.lastClaimed.get(window)?.n ?? 0) + 1;
    for (; n <= ceiling; n++) {
      try {
        await this.claims.insertOne({ _id: `${window}:${n}`, expires_at: expiresAt }, { maxTimeMS: this.timeoutMs });
        break;
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
      }
    }
    this.remember(window, Math.min(n, ceiling), expiresAt);
    return n;
  }

  private remember(window: string, n: number, expiresAt: Date): void {
    const known = this.lastClaimed.get(window)?.n ?? 0;
    this.lastClaimed.set(window, { n: Math.max(n, known), expiresAt: expiresAt.getTime() });
  }

  async sweep(now: Date): Promise<number> {
    const result = await this.claims.deleteMany({ expires_at: { $lt: now } });
    for (const [window, hint] of this.lastClaimed) if (hint.expiresAt < now.getTime()) this.lastClaimed.delete(window);
    return result.deletedCount;
  }
}

/**
 * Counters in this process's memory: no database write per request, but each API process
 * counts alone, so with N replicas a key may get up to N × the limit. For a single API
 * process (`RATE_LIMIT_STORE=memory`).
 */
export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();

  async increment(key: string, windowStart: number, expiresAt: Date): Promise<number> {
    const id = `${key}:${windowStart}`;
    const entry = this.counts.get(id) ?? { count: 0, expiresAt: expiresAt.getTime() };
    entry.count += 1;
    this.counts.set(id, entry);
    return entry.count;
  }

  async sweep(now: Date): Promise<number> {
    let removed = 0;
    for (const [id, entry] of this.counts) {
      if (entry.expiresAt < now.getTime()) {
        this.counts.delete(id);
        removed += 1;
      }
    }
    return removed;
  }
}
