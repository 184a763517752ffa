import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { LIMITS } from '../../src/domain/limits';
import { ApiError } from '../errors';
import type { RequestState } from '../context';
import { validationError } from '../validation';

/**
 * Reads the body once as raw bytes (idempotency and ticket dedupe match on them) and parses
 * it as JSON. Malformed JSON is a body validation failure; a non-JSON content type is 415;
 * a body over the limit is 413: each an envelope, never a crash.
 */
export function jsonBody(): Middleware<RequestState> {
  return async (ctx, next) => {
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: LIMITS.maxBodyBytes, length: ctx.get('content-length') || undefined });
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') {
        throw new ApiError('invalid_argument', `Request body is larger than ${LIMITS.maxBodyBytes} bytes.`, {}, 413);
      }
      throw new ApiError('invalid_argument', 'Request body could not be read.', {}, 400);
    }
    ctx.state.rawBody = raw;
    ctx.state.body = undefined;
    if (raw.length > 0) {
      if (!ctx.is('application/json', '+json')) {
        throw new ApiError('invalid_argument', 'Send the request body as application/json.', {}, 415);
      }
      try {
        ctx.state.body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        throw validationError([
          { loc: ['body'], msg: `Body is not valid JSON: ${(err as Error).message}`, type: 'json_invalid' },
        ]);
      }
    }
    await next();
  };
}
