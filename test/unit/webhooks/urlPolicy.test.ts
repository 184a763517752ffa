import { addressRange, checkWebhookUrl, isPublicAddress } from '../../../src/webhooks/urlPolicy';
import { sendWebhook } from '../../../src/webhooks/send';

describe('webhook address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.4.4'])('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('judges IP literals in URLs, bracketed IPv6 included', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:8080/hook', false)).toEqual({ ok: false, reason: 'webhook_url_private', host: '127.0.0.1', address: '127.0.0.1', range: 'loopback' });
    expect(await checkWebhookUrl('http://[::1]/hook', false)).toMatchObject({ ok: false, address: '::1' });
    expect(await checkWebhookUrl('https://169.254.169.254/latest/meta-data', false)).toMatchObject({ ok: false, range: 'linkLocal' });
    expect(await checkWebhookUrl('https://8.8.8.8/hook', false)).toEqual({ ok: true });
  });

  it('resolves host names and refuses one that resolves to a private address', async () => {
    expect(await checkWebhookUrl('http://localhost:3000/hook', false)).toMatchObject({ ok: false, reason: 'webhook_url_private', host: 'localhost', range: 'loopback' });
  });

  it('refuses a host name that does not resolve', async () => {
    expect(await checkWebhookUrl('https://nothing-here.invalid/hook', false)).toEqual({ ok: false, reason: 'webhook_url_unresolvable', host: 'nothing-here.invalid' });
  });

  it('allows everything when the deployment allows private addresses', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1/hook', true)).toEqual({ ok: true });
  });

  it('refuses private addresses again when sending, for IP literals and resolved names', async () => {
    const body = Buffer.from('{}');
    const literal = await sendWebhook({ url: 'http://127.0.0.1:9/hook', body, headers: {}, timeoutMs: 2_000, allowPrivate: false });
    expect(literal).toMatchObject({ statusCode: null, error: '127.0.0.1 is a loopback address; private, loopback and link-local addresses are refused' });
    // A name that resolves privately at send time (DNS rebinding) is stopped inside the connection's lookup.
    const named = await sendWebhook({ url: 'http://localhost:9/hook', body, headers: {}, timeoutMs: 2_000, allowPrivate: false });
    expect(named.statusCode).toBeNull();
    expect(named.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1) \(loopback\); private, loopback and link-local addresses are refused$/);
  });
});
