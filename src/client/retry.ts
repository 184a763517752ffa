/**
 * When the client tries a request again, following the contract's retry guidance
 * (api-core §7 "Retry guidance", §4 idempotency, §8 limits). Pure: the decision takes the
 * attempt's outcome, the clock and a random source, so every branch is unit-tested.
 *
 * - 429 `rate_limited`: the window is the server's clock minute, so wait for its next
 *   boundary (by the response's `Date`, else our clock), or `Retry-After` when one is sent.
 * - 429 `call_concurrency`: requeue after a call ends, tens of seconds, not at the minute.
 * - 429 `daily_call_budget`: not retried (it holds until 00:00 UTC; the caller decides).
 * - 409 `idempotency_in_progress` on a request with its key: wait `details.retry_after_seconds`;
 *   the retry replays the first request's answer.
 * - 502 `provider_error`: backoff, whatever the method (the contract says to retry it).
 * - Other 5xx, and a connection lost after the request may have been sent: backoff only for
 *   GET and HEAD. A 5xx can follow a send or a call that went out, and the key is released on
 *   a 5xx, so repeating a create could send twice: "confirm before retrying".
 * - A connection that never opened (refused, no such host): backoff for any method; nothing
 *   reached the API.
 * - 412 and every other 4xx: never. 412 persists until configuration or billing changes.
 */

export interface RetryPolicy {
  /** Tries after the first; 0 turns retrying off. */
  maxRetries: number;
  /** The first backoff; each later one doubles, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The wait before requeueing a call refused for `call_concurrency`. */
  callConcurrencyDelayMs: number;
  /** The longest wait the client will take for any one retry (a `Retry-After` beyond it is not waited for). */
  maxWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  callConcurrencyDelayMs: 30_000,
  maxWaitMs: 65_000,
};

/** The rate limit's window: a fixed wall-clock minute (api-core §8 rule 2). */
const WINDOW_MS = 60_000;
/** Spread over which clients refused in the same minute come back, so they do not all arrive at :00. */
const BOUNDARY_SPREAD_MS = 1_000;

/** One try's outcome, as much of it as the decision needs. */
export type AttemptOutcome =
  | {
      kind: 'response';
      method: string;
      status: number;
      /** `error.details.reason` of the envelope, when there is one. */
      reason: string | null;
      details: Record<string, unknown>;
      headers: Headers;
      /** Whether the request carried an `Idempotency-Key`. */
      keyed: boolean;
    }
  | { kind: 'network'; method: string; error: unknown };

export interface RetryContext {
  /** Retries already made for this request (0 before the first retry). */
  retries: number;
  policy: RetryPolicy;
  now: Date;
  /** In [0, 1). */
  random: () => number;
}

/** How long to wait before trying again, or null when the outcome stands. */
export function retryDelay(outcome: AttemptOutcome, { retries, policy, now, random }: RetryContext): number | null {
  if (retries >= policy.maxRetries) return null;
  const wait = (ms: number | null) => (ms === null || ms > policy.maxWaitMs ? null : Math.max(0, Math.round(ms)));
  const backoff = () => {
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retries);
    // Half fixed, half random: growing waits that a fleet of clients does not synchronise on.
    return ceiling / 2 + random() * (ceiling / 2);
  };
  const readOnly = outcome.method === 'GET' || outcome.method === 'HEAD';

  if (outcome.kind === 'network') {
    if (readOnly || neverConnected(outcome.error)) return wait(backoff());
    return null;
  }

  const { status, reason, details, headers } = outcome;
  if (status === 429) {
    if (reason === 'daily_call_budget') return null;
    if (reason === 'call_concurrency') return wait(policy.callConcurrencyDelayMs * (1 + random() / 4));
    return wait(retryAfterMs(headers, now) ?? untilNextMinute(headers, now) + random() * BOUNDARY_SPREAD_MS);
  }
  if (status === 409 && reason === 'idempotency_in_progress' && outcome.keyed) {
    const seconds = typeof details.retry_after_seconds === 'number' ? details.retry_after_seconds : 2;
    return wait(seconds * 1000);
  }
  if (status === 502) return wait(retryAfterMs(headers, now) ?? backoff());
  if (status >= 500 && readOnly) return wait(retryAfterMs(headers, now) ?? backoff());
  return null;
}

/** `Retry-After` in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: Date): number | null {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * Time to the next minute boundary of the server's clock. The `Date` header has whole
 * seconds, truncated, so the wait computed from it is never shorter than the true one.
 */
export function untilNextMinute(headers: Headers, now: Date): number {
  const served = Date.parse(headers.get('date') ?? '');
  const clock = Number.isNaN(served) ? now.getTime() : served;
  return WINDOW_MS - (clock % WINDOW_MS);
}

/** Connection failures that mean the request never reached the API (so any method may be sent again). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export function neverConnected(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return true;
  }
  return false;
}
