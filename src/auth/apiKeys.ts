import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyDoc } from '../db/collections';

/** `ork_<live|test>_<secret>`: the prefix names the product, the middle the environment. */
export const API_KEY_PREFIX = 'ork';
export type KeyEnvironment = 'live' | 'test';

const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40;
export const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}_(live|test)_[A-Za-z0-9]{${SECRET_LENGTH}}$`);

export interface NewApiKey {
  plaintext: string;
  hash: string;
  displayPrefix: string;
}

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext).digest('hex');
}

export function generateApiKey(environment: KeyEnvironment): NewApiKey {
  // 62 divides 256 unevenly; rejecting bytes >= 248 keeps every character equally likely.
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH)) {
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += SECRET_ALPHABET[byte % 62];
    }
  }
  const plaintext = `${API_KEY_PREFIX}_${environment}_${secret}`;
  return { plaintext, hash: hashApiKey(plaintext), displayPrefix: plaintext.slice(0, 13) };
}

export type KeyRefusal = 'revoked_api_key' | 'expired_api_key' | 'wrong_environment';

/**
 * Why a stored key may not be used now, checked in the contract's order (revoked or
 * expired, then environment), or null when it may.
 */
export function keyRefusal(key: ApiKeyDoc, environment: KeyEnvironment, now: Date): KeyRefusal | null {
  if (key.revoked_at) return 'revoked_api_key';
  if (key.expires_at && key.expires_at <= now) return 'expired_api_key';
  if (key.environment !== environment) return 'wrong_environment';
  return null;
}
