import type { Middleware } from 'koa';
import { ApiError, errorEnvelope, fromStatus, toApiError } from '../errors';
import type { RequestState } from '../context';

/**
 * Turns every failure below it into the spec's envelope: thrown errors, and error statuses
 * left without a body (an unknown path, a 405 from the router, which keeps its `Allow`).
 * An unhandled exception is logged with its stack here and answered as 500
 * `Internal server error.` with nothing of it shown; a database that does not answer is 503
 * `unavailable` with `Retry-After`, a workspace lease waited out 503 `busy`.
 */
export function errorHandler(): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
        const bare = fromStatus(ctx.status);
        ctx.status = bare.status;
        ctx.body = errorEnvelope(bare, ctx.state);
      }
    } catch (err) {
      const apiError = toApiError(err);
      if (!(err instanceof ApiError) && apiError.status === 500) {
        ctx.state.log.error({ err }, 'unhandled error');
      } else if (apiError.details.reason === 'unavailable') {
        ctx.state.log.warn({ err }, 'database not answering');
      } else if (apiError.details.reason === 'busy') {
        ctx.state.log.warn({ err }, 'workspace lease waited out');
      }
      ctx.status = apiError.status;
      ctx.set(apiError.headers);
      ctx.body = errorEnvelope(apiError, ctx.state);
    }
  };
}
