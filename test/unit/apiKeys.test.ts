import { API_KEY_PATTERN, generateApiKey, hashApiKey } from '../../src/auth/apiKeys';

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
