import type { Middleware } from 'koa';
import type { Logger } from '../../src/observability/logger';
import type { CounterStore } from '../../src/rateLimit/counterStore';
import { LIMITS } from '../../src/domain/limits';
import { ApiError } from '../errors';
import type { RequestState } from '../context';

/**
 * api-core §8: a fixed clock-minute window per key, counted after authentication and
 * standing and before the scope check. Successes carry the two headers; errors, the 429
 * included, carry neither. When the counter store does not answer, requests pass (fail
 * open) and nothing is counted.
 */
export function rateLimit(deps: { store: CounterStore; logger: Logger; now?: () => Date }): Middleware<RequestState> {
  const limit = LIMITS.requestsPerMinute;
  const windowMs = LIMITS.rateWindowSeconds * 1000;
  const now = deps.now ?? (() => new Date());
  return async (ctx, next) => {
    const keyId = ctx.state.apiKey!.key_id;
    const windowStart = Math.floor(now().getTime() / windowMs) * windowMs;
    let remaining: number;
    try {
      const count = await deps.store.increment(keyId, windowStart, new Date(windowStart + 2 * windowMs), limit);
      remaining = Math.max(0, limit - count);
      if (count > limit) {
        throw new ApiError('rate_limited', `Rate limit of ${limit} requests per minute reached; retry at the next minute.`, {
          reason: 'rate_limited',
          limit,
          window_seconds: LIMITS.rateWindowSeconds,
        });
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      deps.logger.warn({ err, key_id: keyId }, 'rate limit store unreachable; failing open');
      remaining = limit;
    }
    await next();
    if (ctx.status < 400) {
      ctx.set('X-RateLimit-Limit', String(limit));
      ctx.set('X-RateLimit-Remaining', String(remaining));
    }
  };
}
