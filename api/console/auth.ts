import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError } from '../errors';
import type { RequestState } from '../context';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The console's admin token as `Authorization: Bearer`, compared in constant time. */
export function consoleAuth(token: string): Middleware<RequestState> {
  const expected = digest(token);
  return async (ctx, next) => {
    const match = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization').trim());
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      throw new ApiError('unauthenticated', 'Send the console token as Authorization: Bearer <token>.', { reason: 'invalid_console_token' });
    }
    await next();
  };
}
