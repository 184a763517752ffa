import { isDatabaseUnavailable } from '../db/mongo';
import type { Logger } from '../observability/logger';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RENEW_MS, IdempotencyStore, type ClaimScope } from './store';

/**
 * Claims whose write failed because the database did not answer. Such a write may still sit
 * in a socket of a stopped server and land once it resumes, holding the key for its lease
 * though its request already answered 503: each is released (by its owner, so never another
 * request's claim) once the database answers again, off the request's path.
 */
export interface LateClaims {
  /** Remembers a claim whose write went unanswered; returns at once. */
  add(scope: ClaimScope, owner: string, log: Logger): void;
  /** Whether `owner`, found holding the key, is such a claim: the key's retry may then release it. */
  holds(scope: ClaimScope, owner: string): boolean;
  /** Releases it now (a retry found it holding the key) and forgets it. */
  release(scope: ClaimScope, owner: string): Promise<void>;
}

/** How many passes find nothing to release, with the database answering, before a claim is let go: a write left in a socket lands within a lease of the resume. */
const ANSWERED_PASSES = IDEMPOTENCY_LEASE_MS / IDEMPOTENCY_RENEW_MS;
/** Passes before a claim is let go while the database stays down (about ten minutes): its lease has lapsed by then, so a retry takes it over. */
const MAX_PASSES = 600;
/** Claims remembered at once; past this a new one is not (its key is held for a lease at worst). */
const MAX_PENDING = 10_000;

interface Pending {
  scope: ClaimScope;
  owner: string;
  log: Logger;
  passes: number;
  answered: number;
}

/**
 * One loop for all of them, one release at a time, every renewal interval: during an outage
 * it costs the database one unanswered operation per pass, however many requests failed.
 */
export function lateClaims(store: Pick<IdempotencyStore, 'release'>): LateClaims {
  const pending = new Map<string, Pending>();
  let timer: NodeJS.Timeout | null = null;

  const schedule = () => {
    if (timer || pending.size === 0) return;
    timer = setTimeout(() => void pass().finally(() => ((timer = null), schedule())), IDEMPOTENCY_RENEW_MS);
    timer.unref();
  };

  async function pass(): Promise<void> {
    for (const [id, claim] of pending) if (++claim.passes > MAX_PASSES) pending.delete(id);
    for (const [id, claim] of [...pending]) {
      try {
        const released = await store.release(claim.scope, claim.owner);
        claim.answered += 1;
        if (released || claim.answered >= ANSWERED_PASSES) pending.delete(id);
      } catch (err) {
        if (!isDatabaseUnavailable(err)) {
          pending.delete(id);
          claim.log.warn({ err, endpoint: claim.scope.endpoint }, 'Idempotency-Key claim left by a database outage not released');
          continue;
        }
        return; // still down: the others wait for the next pass too
      }
    }
  }

  const idOf = (scope: ClaimScope, owner: string) => `${IdempotencyStore.id(scope)}|${owner}`;
  return {
    add(scope, owner, log) {
      if (pending.size >= MAX_PENDING) return;
      pending.set(idOf(scope, owner), { scope, owner, log, passes: 0, answered: 0 });
      schedule();
    },
    holds: (scope, owner) => pending.has(idOf(scope, owner)),
    async release(scope, owner) {
      await store.release(scope, owner);
      pending.delete(idOf(scope, owner));
    },
  };
}
