import { API_KEY_PATTERN, generateApiKey, hashApiKey, keyRefusal } from '../../../src/auth/apiKeys';
import type { ApiKeyDoc } from '../../../src/db/collections';

describe('API keys', () => {
  it('have the form <prefix>_<environment>_<secret>', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    expect(live.plaintext).toMatch(/^ork_live_[A-Za-z0-9]{40}$/);
    expect(test.plaintext).toMatch(/^ork_test_[A-Za-z0-9]{40}$/);
    expect(API_KEY_PATTERN.test(live.plaintext)).toBe(true);
  });

  it('are stored as a sha256 hash, never as themselves', () => {
    const key = generateApiKey('test');
    expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.hash).toBe(hashApiKey(key.plaintext));
    expect(key.hash).not.toContain(key.plaintext.slice(9));
    expect(key.displayPrefix).toBe(key.plaintext.slice(0, 13));
  });

  it('do not repeat', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey('test').plaintext));
    expect(keys.size).toBe(1000);
  });
});

describe('keyRefusal', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const key = (over: Partial<ApiKeyDoc>): ApiKeyDoc => ({
    _id: 'h',
    key_id: 'key_1',
    tenant_id: 'ws_1',
    environment: 'test',
    scopes: [],
    display_prefix: 'ork_test_abcd',
    created_at: now,
    revoked_at: null,
    expires_at: null,
    ...over,
  });

  it('accepts a live, unexpired key of the deployment’s environment', () => {
    expect(keyRefusal(key({}), 'test', now)).toBeNull();
    expect(keyRefusal(key({ expires_at: new Date(now.getTime() + 1) }), 'test', now)).toBeNull();
  });

  it('gives revoked before expired before environment, as the contract orders them', () => {
    const past = new Date(now.getTime() - 1);
    expect(keyRefusal(key({ revoked_at: past, expires_at: past, environment: 'live' }), 'test', now)).toBe('revoked_api_key');
    expect(keyRefusal(key({ expires_at: now, environment: 'live' }), 'test', now)).toBe('expired_api_key');
    expect(keyRefusal(key({ environment: 'live' }), 'test', now)).toBe('wrong_environment');
  });
});
