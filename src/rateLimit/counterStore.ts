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
