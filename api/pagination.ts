import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { validationError } from './validation';

/**
 * Opaque cursors: the position (the sort values of the last item), bound to the workspace
 * and the list it came from, and signed. A cursor that was changed, or that belongs to
 * another workspace or list, is a 400; it can never reach another workspace's data (every
 * query filters on the caller's workspace as well).
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  private sign(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, 16);
  }

  encode(tenantId: string, list: string, position: unknown[]): string {
    const payload = Buffer.from(JSON.stringify({ t: tenantId, l: list, p: position })).toString('base64url');
    return `${payload}.${this.sign(payload).toString('base64url')}`;
  }

  decode(cursor: string, tenantId: string, list: string): unknown[] {
    const [payload, signature, extra] = cursor.split('.');
    if (payload && signature && extra === undefined) {
      const given = Buffer.from(signature, 'base64url');
      const expected = this.sign(payload);
      if (given.length === expected.length && timingSafeEqual(given, expected)) {
        const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { t: string; l: string; p: unknown[] };
        if (parsed.t === tenantId && parsed.l === list && Array.isArray(parsed.p)) return parsed.p;
      }
    }
    throw validationError([{ loc: ['query', 'cursor'], msg: 'Cursor is not valid; pass back a next_cursor unmodified.', type: 'cursor_invalid' }]);
  }
}

/** The `limit` and `cursor` query parameters of a list route. */
export function pageQuery(maxLimit: number, defaultLimit: number) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
    cursor: z.string().min(1).max(2048).optional(),
  });
}

/** A page's answer: `{items, next_cursor}` of the record (`page` builds it). */
export const pageOf = <T extends z.ZodType>(record: T) => z.object({ items: z.array(record), next_cursor: z.string().nullable() });

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** `next_cursor` only when the page came back full (api-core §4). */
export function page<D, T>(docs: D[], limit: number, toItem: (doc: D) => T, cursorFor: (last: D) => string): Page<T> {
  const last = docs[docs.length - 1];
  return { items: docs.map(toItem), next_cursor: docs.length === limit && last !== undefined ? cursorFor(last) : null };
}
