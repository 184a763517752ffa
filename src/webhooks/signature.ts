import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing: HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`,
 * keyed with the secret's bytes, sent as `v1,<base64>`. Secrets follow the convention
 * `whsec_<base64 of 32 random bytes>`; the key is the decoded bytes after the prefix.
 * This file has no dependencies beyond node:crypto, so verify.ts can ship on its own.
 */

export const SECRET_PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret: the base64 after `whsec_` (a bare base64 secret is accepted too). */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty or not base64');
  return key;
}

/** `v1,<base64 HMAC-SHA256 of id.timestamp.body>` over the body's exact bytes. */
export function signature(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  const mac = createHmac('sha256', secretKey(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The three headers of one delivery attempt. Several secrets (a rotation's new and old)
 * give several space-separated signatures; a receiver accepts the message if any matches.
 */
export type SignedHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export function signedHeaders(secrets: string[], id: string, timestamp: number, body: string | Buffer): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
}
