import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { Middleware } from 'koa';
import type { RequestState } from '../context';
import { ApiError } from '../errors';

/** Where the web console is served; its API and its log-in live beside it under `/console/v1` and `/console/session`. */
export const CONSOLE_WEB_PATH = '/console/';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * The page may load and call only its own origin: no inline script, nothing from elsewhere,
 * not framed. Vite emits external scripts and stylesheets only, so nothing needs loosening.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths under `/console/` that are not the web console's files. */
const NOT_STATIC = /^\/console\/(v1|session)(\/|$)/;

async function fileAt(path: string): Promise<{ size: number; mtime: Date } | null> {
  try {
    const found = await stat(path);
    return found.isFile() ? found : null;
  } catch {
    return null;
  }
}

/**
 * Serves the built web console (dist/console-web) at `/console/`. Vite's hashed files under
 * `assets/` are cached for a year as immutable; `index.html` is revalidated on every load,
 * so a new build shows at the next reload. A path that names no file and has no extension is
 * a page of the single-page app: it gets `index.html` (the fallback), and the app routes it.
 */
export function consoleWebStatic(root: string): Middleware<RequestState> {
  const base = normalize(root);
  return async (ctx, next) => {
    if (ctx.path === '/console') {
      ctx.status = 308;
      ctx.redirect(CONSOLE_WEB_PATH + (ctx.querystring ? `?${ctx.querystring}` : ''));
      return;
    }
    if (!ctx.path.startsWith(CONSOLE_WEB_PATH) || NOT_STATIC.test(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      const refused = new ApiError('invalid_argument', 'This method is not allowed on this path; see the Allow header.', {}, 405);
      refused.headers.Allow = 'GET, HEAD';
      throw refused;
    }
    let relative: string;
    try {
      relative = decodeURIComponent(ctx.path.slice(CONSOLE_WEB_PATH.length));
    } catch {
      throw new ApiError('not_found', 'No route matches this path.');
    }
    const wanted = normalize(join(base, relative));
    if (relative.includes('\0') || (wanted !== base && !wanted.startsWith(base + sep))) throw new ApiError('not_found', 'No route matches this path.');

    let path = wanted;
    let file = relative === '' ? null : await fileAt(path);
    if (!file) {
      if (extname(relative) !== '') throw new ApiError('not_found', 'No route matches this path.');
      path = join(base, 'index.html');
      file = await fileAt(path);
      if (!file) throw new ApiError('not_found', 'The web console is not built; run `npm run build:web`.', { reason: 'console_web_not_built' });
    }
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    const immutable = relative.startsWith('assets/') && path === wanted;
    ctx.set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Last-Modified', file.mtime.toUTCString());
    if (type.startsWith('text/html')) {
      ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Frame-Options', 'DENY');
    }
    ctx.type = type;
    ctx.length = file.size;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (ctx.method === 'HEAD') return;
    ctx.body = createReadStream(path);
  };
}
