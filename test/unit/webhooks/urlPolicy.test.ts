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

  // Issue 32: every IPv6 form that carries an IPv4 address is judged by the address it carries.
  it.each([
    ['::127.0.0.1', 'IPv4-compatible, as written in a URL', 'loopback'],
    ['::7f00:1', 'IPv4-compatible, as the URL parser spells it', 'loopback'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata address', 'linkLocal'],
    ['::ffff:127.0.0.1', 'IPv4-mapped', 'loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped, in hex', 'loopback'],
    ['::ffff:0:7f00:1', 'IPv4-translated (RFC 6145)', 'loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 (RFC 6052)', 'loopback'],
    ['64:ff9b::a00:1', 'NAT64 with 10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 with the metadata address', 'linkLocal'],
    ['2002:7f00:1::', '6to4 with 127.0.0.1', 'loopback'],
    ['2002:c0a8:101::1', '6to4 with 192.168.1.1', 'private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1 inverted', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo, client 10.0.0.1 inverted', 'private'],
    ['2001:0:a9fe:a9fe::1', 'Teredo, server the metadata address', 'linkLocal'],
  ])('refuses %s (%s) as %s', async (address, _form, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
    const url = `http://[${address}]/hook`;
    const host = new URL(url).hostname.slice(1, -1);
    expect(await checkWebhookUrl(url, false)).toEqual({ ok: false, reason: 'webhook_url_private', host, address: host, range });
    // And again when sending, should one have been stored before.
    const sent = await sendWebhook({ url, body: Buffer.from('{}'), headers: {}, timeoutMs: 2_000, allowPrivate: false });
    expect(sent).toMatchObject({ statusCode: null, error: `${host} is a ${range} address; private, loopback and link-local addresses are refused` });
  });

  it.each([
    ['::808:808', 'ipv4Compatible'],
    ['64:ff9b::808:808', 'rfc6052'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ])('still refuses the transition form %s when the IPv4 it carries is public (%s): no webhook needs one', (address, range) => {
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
