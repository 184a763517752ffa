import { ConfigError, loadConfig, webhookPrivateUrlsAllowed } from '../../../src/config';

describe('WEBHOOK_ALLOW_PRIVATE_URLS', () => {
  it('defaults to refusing private addresses in production only', () => {
    expect(webhookPrivateUrlsAllowed(loadConfig({ NODE_ENV: 'production' }))).toBe(false);
    expect(webhookPrivateUrlsAllowed(loadConfig({ NODE_ENV: 'development' }))).toBe(true);
    expect(webhookPrivateUrlsAllowed(loadConfig({ NODE_ENV: 'test' }))).toBe(true);
    expect(webhookPrivateUrlsAllowed(loadConfig({}))).toBe(true);
  });

  it('is overridden either way when set', () => {
    expect(webhookPrivateUrlsAllowed(loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }))).toBe(true);
    expect(webhookPrivateUrlsAllowed(loadConfig({ NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }))).toBe(false);
  });

  it('refuses anything but true or false, naming the variable', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' })).toThrow(/WEBHOOK_ALLOW_PRIVATE_URLS: expected true or false/);
  });
});
