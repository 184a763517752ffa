import type { ParameterizedContext } from 'koa';

/** The cookie that carries a console session id: sent to `/console` paths only, never to `/api/v1`. */
export const SESSION_COOKIE = 'console_session';
const COOKIE_PATH = '/console';

/**
 * Set by hand rather than with `ctx.cookies.set`: the attributes are the point here
 * (HttpOnly, SameSite=Strict, Secure when the request came over TLS), so they are spelled out.
 */
function cookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    `Path=${COOKIE_PATH}`,
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function setSessionCookie(ctx: ParameterizedContext, id: string, maxAgeMs: number): void {
  ctx.set('Set-Cookie', cookie(id, Math.floor(maxAgeMs / 1000), ctx.secure));
}

export function clearSessionCookie(ctx: ParameterizedContext): void {
  ctx.set('Set-Cookie', cookie('', 0, ctx.secure));
}

export function sessionCookie(ctx: ParameterizedContext): string | undefined {
  return ctx.cookies.get(SESSION_COOKIE) || undefined;
}
