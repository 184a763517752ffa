import type { Db } from 'mongodb';

/** Counts requests per key per window; shared by every API replica. */
export interface CounterStore {
  /** Adds one to the window's count and returns the count including this request. */
  increment(key: string, windowStart: number, expiresAt: Date): Promise<number>;
}

interface CounterDoc {
  _id: string;
  count: number;
  expires_at: Date;
}

/**
 * Counters in MongoDB, one document per key and window, incremented atomically. There are
 * no TTL indexes on FerretDB, so `sweep` deletes windows that have ended.
 */
export class MongoCounterStore implements CounterStore {
  private readonly counters;

  constructor(db: Db, private readonly timeoutMs = 250) {
    this.counters = db.collection<CounterDoc>('rate_limit_counters');
  }

  async increment(key: string, windowStart: number, expiresAt: Date): Promise<number> {
    const doc = await this.counters.findOneAndUpdate(
      { _id: `${key}:${windowStart}` },
      { $inc: { count: 1 }, $setOnInsert: { expires_at: expiresAt } },
      { upsert: true, returnDocument: 'after', maxTimeMS: this.timeoutMs },
    );
    if (!doc) throw new Error('counter upsert returned no document');
    return doc.count;
  }

  async sweep(now: Date): Promise<number> {
    const result = await this.counters.deleteMany({ expires_at: { $lt: now } });
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
