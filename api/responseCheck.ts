import { isDeepStrictEqual } from 'node:util';
import type { Middleware } from 'koa';
import type { RequestState } from './context';
import { ApiError } from './errors';
import type { RouteDef } from './route';

/**
 * Where a JSON value and what its schema kept of it first differ: a key the schema does not
 * name is stripped by parsing, so the parsed value no longer equals the sent one.
 */
function firstDifference(sent: unknown, kept: unknown, at: (string | number)[] = []): (string | number)[] {
  if (sent && kept && typeof sent === 'object' && typeof kept === 'object') {
    for (const key of Object.keys(sent)) {
      const a = (sent as Record<string, unknown>)[key];
      const b = (kept as Record<string, unknown>)[key];
      if (!isDeepStrictEqual(a, b)) return firstDifference(a, b, [...at, Array.isArray(sent) ? Number(key) : key]);
    }
  }
  return at;
}

/**
 * Test runs only (NODE_ENV=test, api/app.ts): the answer a route gives with its documented
 * status must be what its response schema says, on the wire (after JSON), with no key the
 * schema leaves out. A mismatch is a 500 naming the route and the first wrong field, so
 * every integration and browser test that reads a route also checks its schema; the
 * document, the console's generated types and the server cannot drift apart unnoticed.
 */
export function checkResponse(route: RouteDef): Middleware<RequestState> {
  const { schema, status, mediaType } = route.response;
  return async (ctx, next) => {
    await next();
    if (!schema || mediaType || ctx.status !== status || status === 204) return;
    const sent: unknown = JSON.parse(JSON.stringify(ctx.body ?? null));
    const parsed = schema.safeParse(sent);
    const errors = parsed.success
      ? isDeepStrictEqual(parsed.data, sent)
        ? []
        : [{ loc: firstDifference(sent, parsed.data), msg: 'not in the response schema' }]
      : parsed.error.issues.map((issue) => ({ loc: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), msg: issue.message }));
    if (errors.length === 0) return;
    ctx.body = undefined;
    throw new ApiError('internal', `The ${route.operationId} answer does not match its response schema.`, { reason: 'response_schema_mismatch', errors });
  };
}
