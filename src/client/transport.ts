import { isEnvelope } from './errors';
import { retryDelay, type AttemptOutcome, type RetryPolicy } from './retry';

export type FetchLike = (request: Request) => Promise<Response>;

export interface RetryNotice {
  request: Request;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  outcome: AttemptOutcome;
}

export interface TransportOptions {
  fetch: FetchLike;
  policy: RetryPolicy;
  now: () => Date;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  onRetry?: (notice: RetryNotice) => void;
}

/**
 * A fetch that tries a request again while `retryDelay` says so, and otherwise hands back
 * the last response (or throws the last network error) as it came. Each try sends a copy,
 * with the same headers, so an Idempotency-Key set before stays the same on every try.
 */
export function retryingFetch({ fetch, policy, now, random, sleep, onRetry }: TransportOptions): FetchLike {
  return async (request) => {
    for (let retries = 0; ; retries++) {
      let outcome: AttemptOutcome;
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        outcome = { kind: 'network', method: request.method, error };
        const delayMs = retryDelay(outcome, { retries, policy, now: now(), random });
        if (delayMs === null) throw error;
        onRetry?.({ request, retry: retries + 1, delayMs, outcome });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (response.status < 400) return response;
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => null);
      const details = isEnvelope(body) ? body.error.details : {};
      outcome = {
        kind: 'response',
        method: request.method,
        status: response.status,
        reason: typeof details.reason === 'string' ? details.reason : null,
        details,
        headers: response.headers,
        keyed: request.headers.has('idempotency-key'),
      };
      const delayMs = retryDelay(outcome, { retries, policy, now: now(), random });
      if (delayMs === null) return response;
      await response.body?.cancel();
      onRetry?.({ request, retry: retries + 1, delayMs, outcome });
      await sleep(delayMs, request.signal);
    }
  };
}

/** setTimeout as a promise that an aborted request ends early, with the signal's reason. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
