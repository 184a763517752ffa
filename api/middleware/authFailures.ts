import type { ParameterizedContext } from 'koa';
import { credentialFingerprint, type AuthFailureLimiter } from '../../src/auth/failureLimiter';
import { ApiError } from '../errors';

/**
 * The failed-attempt limit at each place a secret is checked (API keys, the console token,
 * the console log-in): `guard` before the check, `settle` after it. The address is the TCP
 * peer (`app.proxy` is off, so `X-Forwarded-For` cannot pick another address's budget).
 */
export interface AttemptGuard {
  /** Refuses with 429 when the address has used its failures and this credential is not known there. */
  guard(ctx: ParameterizedContext, secret: string): void;
  /** Records the outcome of the check. */
  settle(ctx: ParameterizedContext, secret: string, ok: boolean): void;
}

export function attemptGuard(limiter: AuthFailureLimiter | undefined): AttemptGuard {
  return {
    guard(ctx, secret) {
      if (!limiter) return;
      const check = limiter.check(ctx.ip, credentialFingerprint(secret));
      if (!check.limited) return;
      const { limit, windowMs } = limiter.limits;
      const err = new ApiError('rate_limited', `Too many failed authentication attempts from this address; retry in ${check.retryAfterSeconds} s.`, {
        reason: 'auth_failures',
        limit,
        window_seconds: Math.round(windowMs / 1000),
        retry_after_seconds: check.retryAfterSeconds,
      });
      err.headers['Retry-After'] = String(check.retryAfterSeconds);
      throw err;
    },
    settle(ctx, secret, ok) {
      if (!limiter) return;
      if (ok) limiter.succeeded(ctx.ip, credentialFingerprint(secret));
      else limiter.failed(ctx.ip);
    },
  };
}
