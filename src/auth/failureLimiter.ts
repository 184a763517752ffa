import { createHash } from 'node:crypto';

/**
 * Failed authentication attempts per source address, so guessing a secret (an API key, the
 * console token) costs time and the database little: past `limit` failures in a window of
 * `windowMs` from one address, that address's failures are answered 429 until the window
 * ends, and its keys that need a database read are read one at a time, at most one every
 * `LOOKUP_SPACING_MS`, with at most `MAX_WAITING` waiting for their turn (more: 429 without
 * a read). Only failures count; a request without any credential does not.
 *
 * A guesser must not lock out a real credential, which may share its address (a NAT, a
 * proxy, the API's own load balancer; issue 32: a freshly issued key was refused): every
 * credential presented is still checked, and one that is valid is let through however many
 * failures the address has made. One that has authenticated from the address in the last
 * `KNOWN_FOR_MS` skips the queue; one the process holds in its credential cache costs no
 * read at all. Another address is not affected at all.
 *
 * In this process's memory: each API process limits alone, so with N processes behind a
 * balancer that spreads one address's requests, a guesser gets up to N × `limit` attempts a
 * window. No database write per failure, and nothing to sweep.
 */
export interface FailureLimits {
  limit: number;
  windowMs: number;
}

/** How long a credential that worked from an address is let through while the address is limited. */
const KNOWN_FOR_MS = 24 * 3_600_000;
/** Bounds memory: past this many addresses the least recently seen is forgotten. */
const MAX_SOURCES = 20_000;
/** Credentials remembered per address (the most recent). */
const MAX_KNOWN_PER_SOURCE = 64;
/** A limited address's database reads (an `_id` point read each): ten a second, whatever it sends. */
const LOOKUP_SPACING_MS = 100;
/** A limited address's attempts waiting for a read (2 s of them); one more is refused at once: a flood, not a person. */
const MAX_WAITING = 20;

interface SourceState {
  windowStart: number;
  failures: number;
  /** sha256 of each credential that authenticated from here → when it last did. */
  known: Map<string, number>;
  /** When this address's next database read may start while it is limited. */
  nextLookupAt: number;
  waiting: number;
}

export type FailureCheck = { limited: false } | { limited: true; retryAfterSeconds: number };

/** What the limiter remembers a credential by: never the secret itself. */
export const credentialFingerprint = (secret: string) => createHash('sha256').update(secret).digest('hex');

export class AuthFailureLimiter {
  private readonly sources = new Map<string, SourceState>();

  constructor(
    readonly limits: FailureLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Whether `source` is past its budget (a credential that worked from there is not held back by it). */
  check(source: string, fingerprint: string): FailureCheck {
    const state = this.sources.get(source);
    if (!state) return { limited: false };
    const now = this.clock();
    const windowEnd = state.windowStart + this.limits.windowMs;
    if (now >= windowEnd || state.failures < this.limits.limit) return { limited: false };
    const knownAt = state.known.get(fingerprint);
    if (knownAt !== undefined && now - knownAt < KNOWN_FOR_MS) return { limited: false };
    return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
  }

  /**
   * Waits for a limited address's turn to read the database; false (at once) when
   * `MAX_WAITING` of its attempts already wait.
   */
  async lookupTurn(source: string): Promise<boolean> {
    const state = this.touch(source);
    if (state.waiting >= MAX_WAITING) return false;
    const now = this.clock();
    const at = Math.max(now, state.nextLookupAt);
    state.nextLookupAt = at + LOOKUP_SPACING_MS;
    if (at <= now) return true;
    state.waiting += 1;
    try {
      await new Promise((resolve) => setTimeout(resolve, at - now));
    } finally {
      state.waiting -= 1;
    }
    return true;
  }

  /** A credential from `source` was refused. */
  failed(source: string): void {
    const state = this.touch(source);
    const now = this.clock();
    if (now >= state.windowStart + this.limits.windowMs) {
      state.windowStart = now;
      state.failures = 0;
    }
    state.failures += 1;
  }

  /** A credential from `source` authenticated: it stays usable from there while the address is limited. */
  succeeded(source: string, fingerprint: string): void {
    const state = this.touch(source);
    state.known.delete(fingerprint);
    state.known.set(fingerprint, this.clock());
    if (state.known.size > MAX_KNOWN_PER_SOURCE) state.known.delete(state.known.keys().next().value!);
  }

  private touch(source: string): SourceState {
    const state = this.sources.get(source) ?? { windowStart: 0, failures: 0, known: new Map(), nextLookupAt: 0, waiting: 0 };
    this.sources.delete(source);
    this.sources.set(source, state);
    if (this.sources.size > MAX_SOURCES) this.sources.delete(this.sources.keys().next().value!);
    return state;
  }
}
