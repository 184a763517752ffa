import { timingSafeEqual } from 'node:crypto';
import { signature } from './signature';

/**
 * Verifies a webhook this service sent, for any Node receiver:
 *
 *   import { verify } from '@orchestrator/client/webhooks/verify';
 *   const event = verify(rawBody, req.headers, process.env.WEBHOOK_SECRET);
 *
 * Pass the raw body exactly as received (a Buffer or the undecoded string), never a
 * re-serialised object: the signature covers the bytes. Throws WebhookVerificationError
 * (with a `reason`) unless one `v1` signature matches and the timestamp is within the
 * tolerance; on success returns the parsed envelope. Deduplicate on its `id`: delivery is
 * at least once.
 */

export type VerificationFailure = 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: VerificationFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way. Default 300 (five minutes). */
  toleranceSeconds?: number;
  /** The receiver's clock, for tests. */
  now?: () => Date;
}

export interface WebhookEnvelope {
  id: string;
  type: string;
  created_at: string;
  tenant_id: string;
  data: Record<string, unknown>;
}

/** Node's `req.headers`, a fetch `Headers`, or a plain object; names are matched case-insensitively. */
export type HeaderSource = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

export function verify(rawBody: string | Buffer, headers: HeaderSource, secret: string, options: VerifyOptions = {}): WebhookEnvelope {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are all required');
  }
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not whole seconds');
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', 'webhook-timestamp is too far from the current time');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const expected = Buffer.from(signature(secret, id, seconds, body));
  const matched = signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matched) throw new WebhookVerificationError('invalid_signature', 'no webhook-signature matches this body and secret');
  return JSON.parse(body.toString('utf8')) as WebhookEnvelope;
}
