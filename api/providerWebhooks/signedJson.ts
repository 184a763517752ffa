import type { Context } from 'koa';
import { readProviderBody } from './providerBody';

/**
 * The checks every provider webhook makes before it reads a payload: the provider is
 * configured (404 `not_configured`), the body is within the provider's limit (413
 * `too_large`, providerBody.ts), it is signed with its secret (401 `invalid_signature`,
 * checked over the raw bytes, before any parsing), and it is JSON (400 `invalid_json`).
 * Answers the payload, or undefined after setting the refusal on `ctx`. Plain bodies, not the
 * API's error envelope: the callers are providers, which read only the status.
 */
export async function readSignedJson(
  ctx: Context,
  secret: string | undefined,
  signatureValid: (raw: Buffer, secret: string) => boolean,
  maxBytes: number,
): Promise<{ payload: unknown } | undefined> {
  if (!secret) {
    ctx.status = 404;
    ctx.body = { status: 'not_configured' };
    return undefined;
  }
  const raw = await readProviderBody(ctx, maxBytes);
  if (!raw) return undefined;
  if (!signatureValid(raw, secret)) {
    ctx.status = 401;
    ctx.body = { status: 'invalid_signature' };
    return undefined;
  }
  try {
    return { payload: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    ctx.status = 400;
    ctx.body = { status: 'invalid_json' };
    return undefined;
  }
}
