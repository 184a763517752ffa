import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware, ParameterizedContext } from 'koa';
import { ApiError } from '../errors';
import type { RequestState } from '../context';
import { sessionCookie } from './session/cookie';
import type { ConsoleSessionDoc, ConsoleSessionStore } from './session/sessionStore';
import type { AttemptGuard } from '../middleware/authFailures';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** The header a cookie-authenticated request that changes something carries its CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * This server's own origin as the request reached it. Built by hand: Koa 3's `ctx.origin`
 * echoes the request's Origin header, which is the very thing being checked.
 */
export const ownOrigin = (ctx: ParameterizedContext) => `${ctx.protocol}://${ctx.host}`;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const noConsoleToken = () =>
  new ApiError('unauthenticated', 'Send the console token as Authorization: Bearer <token>.', { reason: 'invalid_console_token' });

export const sessionEnded = () => new ApiError('unauthenticated', 'The console session has ended; log in again.', { reason: 'session_expired' });

/**
 * The CSRF defence of a request authenticated by the session cookie: the browser must say it
 * comes from this origin (SameSite=Strict already keeps the cookie off cross-site requests;
 * this covers older browsers and same-site neighbours), and it must carry the session's CSRF
 * token, which only a script of this origin can have read from GET /console/session.
 */
export function checkCsrf(ctx: ParameterizedContext, session: ConsoleSessionDoc): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const origin = ctx.get('origin');
  if (!origin || origin !== ownOrigin(ctx)) {
    throw new ApiError('permission_denied', 'A console session only accepts changes from its own origin.', { reason: 'origin_mismatch' });
  }
  const token = ctx.get(CSRF_HEADER);
  if (!token || !sameSecret(token, session.csrf_token)) {
    throw new ApiError('permission_denied', `Send the session's CSRF token as ${CSRF_HEADER}.`, { reason: 'csrf_token_invalid' });
  }
}

/**
 * The console API's authentication: the admin token as `Authorization: Bearer` (compared in
 * constant time), or the web console's session cookie with the CSRF defence on changes. A
 * request that sends an Authorization header is judged by it alone, and a wrong token counts
 * against its address's failed attempts (a session id is 256 random bits: not counted).
 */
export function consoleAuth(token: string, sessions: ConsoleSessionStore, attempts: AttemptGuard): Middleware<RequestState> {
  return async (ctx, next) => {
    const authorization = ctx.get('authorization').trim();
    if (authorization) {
      const match = /^Bearer\s+(.+)$/i.exec(authorization);
      const given = match ? match[1]!.trim() : authorization;
      // Compared in memory, so checked first: the real token passes from a guesser's address too.
      if (match === null || !sameSecret(given, token)) throw attempts.failed(ctx, given, noConsoleToken());
      attempts.succeeded(ctx, given);
      await next();
      return;
    }
    const cookie = sessionCookie(ctx);
    if (!cookie) throw noConsoleToken();
    const session = await sessions.find(cookie);
    if (!session) throw sessionEnded();
    checkCsrf(ctx, session);
    await next();
  };
}
