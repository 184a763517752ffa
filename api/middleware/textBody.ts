import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { decodeUtf8 } from '../../src/lists/parseList';
import type { RequestState } from '../context';
import { ApiError } from '../errors';

/**
 * `jsonBody` for a route whose body is a file (an uploaded list's CSV, route `bodyMedia`):
 * read once up to the route's own limit (413 past it), of its media type (415 otherwise),
 * and decoded as UTF-8 without a byte-order mark (400 `invalid_encoding` when the bytes are
 * not UTF-8, rather than a guess at a legacy code page). The text goes where the route's
 * body schema reads it.
 */
export function textBody(media: { type: string; maxBytes: number }): Middleware<RequestState> {
  return async (ctx, next) => {
    if (!ctx.is(media.type)) {
      throw new ApiError('invalid_argument', `Send the file as ${media.type}.`, {}, 415);
    }
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: media.maxBytes, length: ctx.get('content-length') || undefined });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') {
        throw new ApiError('invalid_argument', `The file is larger than ${media.maxBytes} bytes.`, {}, 413);
      }
      throw new ApiError('invalid_argument', 'Request body could not be read.', {}, 400);
    }
    const text = decodeUtf8(raw);
    if (text === null) {
      throw new ApiError('invalid_argument', 'The file is not UTF-8 text: save it as "CSV UTF-8".', { reason: 'invalid_encoding' });
    }
    ctx.state.rawBody = raw;
    ctx.state.body = text;
    await next();
  };
}
