import type { ParameterizedContext } from 'koa';
import { credentialFingerprint, type AuthFailureLimiter } from '../../src/auth/failureLimiter';
import { ApiError } from '../errors';

/**
 * The failed-attempt limit at each place a secret is checked (API keys, the console token,
 * the console log-in). The credential is always checked, so a valid one passes however many
 * failures its address has made; a failure is counted, and past the address's budget it is
 * answered 429 instead of its own refusal. The address is the TCP peer (`app.proxy` is off,
 * so `X-Forwarded-For` cannot pick another address's budget).
 */
export interface AttemptGuard {
  /**
   * Before a check that reads the database: an address past its budget waits for its turn
   * (src/auth/failureLimiter.ts), or is refused 429 when too many of its attempts wait. A
   * credential that has worked from there goes at once.
   */
  beforeLookup(ctx: ParameterizedContext, secret: string): Promise<void>;
  /** The check failed: the error to throw, `refusal` or, past the budget, the 429. */
  failed(ctx: ParameterizedContext, secret: string, refusal: ApiError): ApiError;
  succeeded(ctx: ParameterizedContext, secret: string): void;
}

function limitedError(limiter: AuthFailureLimiter, retryAfterSeconds: number): ApiError {
  const { limit, windowMs } = limiter.limits;
  const err = new ApiError('rate_limited', `Too many failed authentication attempts from this address; retry in ${retryAfterSeconds} s.`, {
    reason: 'auth_failures',
    limit,
    window_seconds: Math.round(windowMs / 1000),
    retry_after_seconds: retryAfterSeconds,
  });
  err.headers['Retry-After'] = String(retryAfterSeconds);
  return err;
}

export function attemptGuard(limiter: AuthFailureLimiter | undefined): AttemptGuard {
  return {
    async beforeLookup(ctx, secret) {
      if (!limiter) return;
      const check = limiter.check(ctx.ip, credentialFingerprint(secret));
      if (check.limited && !(await limiter.lookupTurn(ctx.ip))) throw limitedError(limiter, check.retryAfterSeconds);
    },
    failed(ctx, secret, refusal) {
      if (!limiter) return refusal;
      const check = limiter.check(ctx.ip, credentialFingerprint(secret));
      limiter.failed(ctx.ip);
      return check.limited ? limitedError(limiter, check.retryAfterSeconds) : refusal;
    },
    succeeded(ctx, secret) {
      limiter?.succeeded(ctx.ip, credentialFingerprint(secret));
    },
  };
}
