import Router from '@koa/router';
import { z } from 'zod';
import type { RequestState } from '../../context';
import { ApiError } from '../../errors';
import { formatTimestamp } from '../../format';
import { jsonBody } from '../../middleware/jsonBody';
import { createAppRouter } from '../../routerMethods';
import { validate } from '../../validation';
import type { AttemptGuard } from '../../middleware/authFailures';
import { checkCsrf, ownOrigin, sameSecret, sessionEnded } from '../auth';
import { clearSessionCookie, sessionCookie, setSessionCookie } from './cookie';
import { CONSOLE_SESSION_TTL_MS, type ConsoleSessionDoc, type ConsoleSessionStore } from './sessionStore';

export const CONSOLE_SESSION_PATH = '/console/session';

export const loginBody = z.object({ token: z.string().min(1).max(512) });

const sessionView = (s: ConsoleSessionDoc) => ({ csrf_token: s.csrf_token, expires_at: formatTimestamp(s.expires_at) });

/**
 * The web console's log-in: POST trades the console token for a session cookie, GET tells a
 * page whether it is logged in (and gives it the CSRF token), DELETE logs out. Outside
 * `/console/v1` on purpose: these are how a browser gets its credential, not console API calls.
 */
export function createConsoleSessionRouter(token: string, sessions: ConsoleSessionStore, attempts: AttemptGuard): Router<RequestState> {
  const router = createAppRouter();

  router.post(CONSOLE_SESSION_PATH, jsonBody(), validate({ body: loginBody }), async (ctx) => {
    // A log-in from another origin's page is refused too (login CSRF would tie the victim's
    // browser to the attacker's console); a request with no Origin (curl) is not a browser's.
    const origin = ctx.get('origin');
    if (origin && origin !== ownOrigin(ctx)) {
      throw new ApiError('permission_denied', 'A console session only accepts changes from its own origin.', { reason: 'origin_mismatch' });
    }
    const { token: given } = ctx.state.input!.body as z.output<typeof loginBody>;
    if (!sameSecret(given, token)) {
      throw attempts.failed(ctx, given, new ApiError('unauthenticated', 'That is not the console token.', { reason: 'invalid_console_token' }));
    }
    attempts.succeeded(ctx, given);
    const issued = await sessions.create();
    setSessionCookie(ctx, issued.id, CONSOLE_SESSION_TTL_MS);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = sessionView(issued.session);
  });

  router.get(CONSOLE_SESSION_PATH, async (ctx) => {
    const cookie = sessionCookie(ctx);
    const session = cookie ? await sessions.find(cookie) : null;
    if (!session) throw sessionEnded();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = sessionView(session);
  });

  router.delete(CONSOLE_SESSION_PATH, async (ctx) => {
    const cookie = sessionCookie(ctx);
    const session = cookie ? await sessions.find(cookie) : null;
    if (!session) throw sessionEnded();
    checkCsrf(ctx, session);
    await sessions.end(cookie!);
    clearSessionCookie(ctx);
    ctx.status = 204;
  });
  return router;
}
