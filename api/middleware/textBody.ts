import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { decodeUtf8 } from '../../src/lists/parseList';
import type { RequestState } from '../context';
import type { BodyMedia } from '../route';
import { ApiError } from '../errors';

/**
 * `jsonBody` for a route whose body is a file (an uploaded list's CSV, a knowledge document;
 * route `bodyMedia`): read once up to the route's own limit (413 past it), of one of its
 * media types (415 otherwise), and, unless the route takes the bytes as they are (`binary`:
 * a PDF), decoded as UTF-8 without a byte-order mark (400 `invalid_encoding` when the bytes
 * are not UTF-8, rather than a guess at a legacy code page). The text (or the bytes) goes
 * where the route's body schema reads it.
 */
export function textBody(media: BodyMedia): Middleware<RequestState> {
  const types = typeof media.type === 'string' ? [media.type] : [...media.type];
  return async (ctx, next) => {
    if (!ctx.is(types)) {
      throw new ApiError('invalid_argument', `Send the file as ${types.join(', ')}.`, {}, 415);
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
    ctx.state.rawBody = raw;
    // A binary file (a PDF) reaches the route as its bytes; the route's feature reads it.
    if (media.binary) {
      ctx.state.body = raw;
      await next();
      return;
    }
    const text = decodeUtf8(raw);
    if (text === null) {
      throw new ApiError('invalid_argument', 'The file is not UTF-8 text: save it as "CSV UTF-8".', { reason: 'invalid_encoding' });
    }
    ctx.state.body = text;
    await next();
  };
}
