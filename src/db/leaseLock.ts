import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from './insertIfAbsent';

/**
 * A named mutual-exclusion lease for read-modify-write of one document.
 *
 * Why it exists: FerretDB 1.x on SQLite applies `updateOne`/`findOneAndUpdate` as a read and
 * a separate write, so concurrent conditional updates and `$inc`s on one document lose
 * updates (measured: 30 parallel `$inc`s left 10; 30 parallel `{n: {$lt: 5}}` increments
 * "won" 15 times). Only an insert of a unique `_id` and a delete (counted by rows affected)
 * are decided by the database, so the lease is an insert of `_id: <name>` and its release a
 * delete of it. MongoDB behaves the same, so the code is correct on both.
 *
 * A holder that dies leaves its lease until `expires_at`; the next contender then deletes
 * that exact lease (by its token) and competes again. Keep critical sections far shorter
 * than the lease.
 */
interface LeaseDoc {
  _id: string;
  token: string;
  expires_at: Date;
}

export class LeaseTimeoutError extends Error {
  constructor(readonly leaseName: string, waitedMs: number) {
    super(`lease ${leaseName} not acquired within ${waitedMs} ms`);
    this.name = 'LeaseTimeoutError';
  }
}

export interface LeaseOptions {
  /** How long a lease holds if its holder dies. */
  leaseMs?: number;
  /** How long to wait for the lease before giving up. */
  waitMs?: number;
  now?: () => Date;
}

function leases(db: Db): Collection<LeaseDoc> {
  return db.collection<LeaseDoc>('leases');
}

const DEFAULT_LEASE_MS = 5_000;
const DEFAULT_WAIT_MS = 5_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tail of each lease name's queue in this process. Callers in one process take turns
 * here before they contend in the database: without it, ten campaign batches of one
 * workspace retried the plan lease's insert and read about 2.4 times a send between them
 * (docs/decisions/platform.md, "Leases queue in-process first"). Only an optimisation: exclusion is
 * still the database lease's, so a turn given up after the wait budget is harmless.
 */
const localTurns = new Map<string, Promise<void>>();

async function takeLocalTurn(name: string, waitMs: number): Promise<() => void> {
  const before = localTurns.get(name);
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = (before ?? Promise.resolve()).then(() => mine);
  localTurns.set(name, tail);
  const done = () => {
    release();
    if (localTurns.get(name) === tail) localTurns.delete(name);
  };
  if (before) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([before, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }
  return done;
}

/** Runs `fn` while holding the lease `name`; releases it however `fn` ends. */
export async function withLease<T>(db: Db, name: string, fn: () => Promise<T>, options: LeaseOptions = {}): Promise<T> {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const started = Date.now();
  const endTurn = await takeLocalTurn(name, waitMs);
  try {
    return await withDatabaseLease(db, name, fn, { ...options, waitMs: Math.max(0, waitMs - (Date.now() - started)) });
  } finally {
    endTurn();
  }
}

/** The lease in the database alone, as between processes (exported for its test). */
export async function withDatabaseLease<T>(db: Db, name: string, fn: () => Promise<T>, options: LeaseOptions = {}): Promise<T> {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const now = options.now ?? (() => new Date());
  const collection = leases(db);
  const token = randomBytes(12).toString('hex');
  const started = Date.now();
  let delay = 2;
  for (;;) {
    if (await insertIfAbsent(collection, { _id: name, token, expires_at: new Date(now().getTime() + leaseMs) })) break;
    const held = await collection.findOne({ _id: name });
    if (held && held.expires_at.getTime() <= now().getTime()) {
      await collection.deleteOne({ _id: name, token: held.token });
      continue;
    }
    if (Date.now() - started >= waitMs) throw new LeaseTimeoutError(name, waitMs);
    await pause(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
  try {
    return await fn();
  } finally {
    await collection.deleteOne({ _id: name, token });
  }
}
