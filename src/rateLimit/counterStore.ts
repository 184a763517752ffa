import type { Db } from 'mongodb';
import { isDuplicateKey } from '../db/duplicateKey';

/** Counts requests per key per window; shared by every API replica. */
export interface CounterStore {
  /**
   * This request's number in the key's window, from 1: no two requests of a window get the
   * same number, across every process sharing the store (with several processes the numbers
   * need not arrive in order). Past `ceiling` the store may stop counting exactly and answer
   * any number above it.
   */
  increment(key: string, windowStart: number, expiresAt: Date, ceiling?: number): Promise<number>;
}

interface CounterClaimDoc {
  /** `<key>:<window>:<first>`: a block of the window's request numbers, from `first` on. */
  _id: string;
  expires_at: Date;
}

/**
 * How many request numbers one claim takes: one insert per this many requests of a key, and
 * at most this many less one left unused by a process that holds them when the key's other
 * requests reach another process.
 */
export const CLAIM_BLOCK = 8;

/**
 * The size of the block of request numbers that starts at `first`: the same for every
 * process, so the blocks partition 1…ceiling and two processes can only claim the same
 * block, never overlapping ones.
 */
export function claimBlockSize(first: number, ceiling: number): number {
  return Math.max(1, Math.min(CLAIM_BLOCK, ceiling - first + 1));
}

interface WindowState {
  /** Numbers this process holds and has not handed out yet, lowest first: `[next, last]`. */
  held: [number, number][];
  /** Where the next block to try starts. */
  nextFirst: number;
  /** Requests of this process waiting for a number. */
  waiting: number;
  claiming: Promise<void> | null;
  expiresAt: number;
  /** Blocks this process inserted: deleted by `_id` once the window has ended. */
  claimed: string[];
  /** When this process's last round of claims ended (ms): how fast the key spends its numbers. */
  lastClaimAt: number;
}

/** At most this many blocks are claimed in one round of parallel inserts. */
const BLOCKS_PER_ROUND = 8;

/**
 * A busy key claims its next block while it still holds this many numbers, so that its
 * requests do not wait on the insert (at 2,500 requests/s the inserts that requests waited
 * on were the API's p99). "Busy": it spent the rest of its last block within
 * `CLAIM_AHEAD_WITHIN_MS`. A quiet key still claims only when it has run out, one insert per
 * 8 requests; a busy one may leave one block more unused when its requests stop.
 */
export const CLAIM_AHEAD_AT = 2;
export const CLAIM_AHEAD_WITHIN_MS = 2_000;

/**
 * Counts in MongoDB shared by every API replica. A process claims a block of its key's
 * window's request numbers by inserting `<key>:<window>:<first>` and then hands them out from
 * memory: FerretDB 1.x loses concurrent `$inc`s (docs/decisions/README.md) but never lets two
 * inserts of one `_id` succeed, so no number is handed out twice and no more than `ceiling`
 * requests are admitted per window across processes. A key costs one insert per CLAIM_BLOCK
 * requests (15 a window at the limit instead of 120); a burst claims as many blocks as it
 * needs in one round of parallel inserts. Numbers left unused in a block are not given to
 * other processes, so with several replicas a key may be refused a few requests short of the
 * ceiling (at most CLAIM_BLOCK - 1 per other process), never past it. No TTL indexes on FerretDB: `sweep`
 * deletes ended windows' blocks.
 */
export class MongoCounterStore implements CounterStore {
  private readonly claims;
  private readonly windows = new Map<string, WindowState>();

  constructor(
    db: Db,
    private readonly timeoutMs = 250,
    /** At most this many leftover blocks (of processes gone) are deleted per sweep. */
    private readonly sweepBatch = 500,
    private readonly clock: () => number = Date.now,
  ) {
    this.claims = db.collection<CounterClaimDoc>('rate_limit_claims');
  }

  async increment(key: string, windowStart: number, expiresAt: Date, ceiling = Number.MAX_SAFE_INTEGER): Promise<number> {
    const id = `${key}:${windowStart}`;
    let state = this.windows.get(id);
    if (!state) {
      state = { held: [], nextFirst: 1, waiting: 0, claiming: null, expiresAt: expiresAt.getTime(), claimed: [], lastClaimAt: 0 };
      this.windows.set(id, state);
    }
    const window = state;
    for (;;) {
      const range = window.held[0];
      if (range) {
        const n = range[0]++;
        if (range[0] > range[1]) window.held.shift();
        this.claimAheadIfBusy(id, window, ceiling, expiresAt);
        return n;
      }
      if (window.nextFirst > ceiling) return ceiling + 1;
      // One round of claims at a time per window: parallel requests wait for it together.
      window.waiting++;
      try {
        window.claiming ??= this.claimRound(id, window, ceiling, expiresAt);
        await window.claiming;
      } finally {
        window.waiting--;
      }
    }
  }

  private claimRound(id: string, window: WindowState, ceiling: number, expiresAt: Date): Promise<void> {
    return this.claimBlocks(id, window, ceiling, expiresAt).finally(() => {
      window.claiming = null;
      window.lastClaimAt = this.clock();
    });
  }

  /** Starts the next round in the background when a busy key is about to run out. */
  private claimAheadIfBusy(id: string, window: WindowState, ceiling: number, expiresAt: Date): void {
    if (window.claiming || window.nextFirst > ceiling) return;
    const left = window.held.reduce((sum, [next, last]) => sum + last - next + 1, 0);
    if (left > CLAIM_AHEAD_AT || this.clock() - window.lastClaimAt > CLAIM_AHEAD_WITHIN_MS) return;
    // Nobody waits on it: a failure here is retried by the first request that runs out.
    window.claiming = this.claimRound(id, window, ceiling, expiresAt);
    window.claiming.catch(() => undefined);
  }

  /** Claims the next blocks, enough for every waiting request, in one round of parallel inserts. */
  private async claimBlocks(id: string, state: WindowState, ceiling: number, expiresAt: Date): Promise<void> {
    const blocks: [number, number][] = [];
    let wanted = Math.max(1, state.waiting);
    for (let first = state.nextFirst; first <= ceiling && wanted > 0 && blocks.length < BLOCKS_PER_ROUND; ) {
      const size = claimBlockSize(first, ceiling);
      blocks.push([first, first + size - 1]);
      wanted -= size;
      first += size;
    }
    const outcomes = await Promise.allSettled(
      blocks.map(([first]) => this.claims.insertOne({ _id: `${id}:${first}`, expires_at: expiresAt }, { maxTimeMS: this.timeoutMs })),
    );
    state.nextFirst = blocks.length ? blocks[blocks.length - 1]![1] + 1 : state.nextFirst;
    let failed: { first: number; reason: unknown } | null = null;
    outcomes.forEach((outcome, i) => {
      const [first, last] = blocks[i]!;
      if (outcome.status === 'fulfilled') {
        state.held.push([first, last]);
        state.claimed.push(`${id}:${first}`);
      } else if (!isDuplicateKey(outcome.reason)) {
        failed ??= { first, reason: outcome.reason };
      }
    });
    if (failed === null) return;
    // Not a duplicate (a timeout, say): that block is tried again next round; a timed-out
    // insert that did land is then a duplicate and skipped, so it is wasted, never shared.
    const { first, reason } = failed as { first: number; reason: unknown };
    state.nextFirst = Math.min(state.nextFirst, first);
    state.held.sort((a, b) => a[0] - b[0]);
    if (state.held.length === 0) throw reason;
  }

  /**
   * Deletes the blocks of windows that have ended: this process's own by `_id` (an indexed
   * delete each), then at most `sweepBatch` left by processes that are gone.
   */
  async sweep(now: Date): Promise<number> {
    let deleted = 0;
    const ended: string[] = [];
    for (const [id, state] of this.windows) {
      if (state.expiresAt >= now.getTime()) continue;
      ended.push(...state.claimed);
      this.windows.delete(id);
    }
    const left = await this.claims
      .find({ expires_at: { $lt: now } }, { projection: { _id: 1 } })
      .limit(this.sweepBatch)
      .toArray();
    for (const claimId of new Set([...ended, ...left.map((c) => c._id)])) {
      deleted += (await this.claims.deleteOne({ _id: claimId })).deletedCount;
    }
    return deleted;
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
