import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may reach. Only globally routable unicast addresses are allowed
 * unless the deployment allows private ones (WEBHOOK_ALLOW_PRIVATE_URLS): loopback,
 * RFC 1918 private, link-local (including the cloud metadata address 169.254.169.254),
 * carrier-grade NAT, unique-local IPv6, multicast, unspecified and reserved ranges are all
 * refused, and an IPv6 address that carries an IPv4 one (mapped, compatible, NAT64, 6to4,
 * Teredo) is refused when the IPv4 it carries would be, named by that address's range.
 *
 * The check runs twice: when an endpoint is saved (the host is resolved, every address
 * must pass) and at every delivery, inside the HTTP client's DNS lookup, so the address
 * checked is the address connected to. A host that resolved to a public address at
 * creation and to 127.0.0.1 later (DNS rebinding) is refused at delivery.
 */

/** The 32 bits at `part` (a 16-bit group index) of an IPv6 address, as IPv4; inverted for Teredo's client. */
function ipv4At(v6: ipaddr.IPv6, part: number, invert = false): ipaddr.IPv4 {
  const [high, low] = [v6.parts[part]!, v6.parts[part + 1]!].map((p) => (invert ? ~p & 0xffff : p));
  return new ipaddr.IPv4([high! >> 8, high! & 0xff, low! >> 8, low! & 0xff]);
}

/**
 * Where an IPv6 address carries an IPv4 one, by each form that embeds one (IPv4-mapped is
 * unwrapped by ipaddr.process before this): IPv4-compatible `::a.b.c.d` (deprecated, still
 * accepted by URL parsers as `[::127.0.0.1]`), IPv4-translated (RFC 6145), NAT64 (RFC 6052),
 * 6to4 (its /48 prefix), and Teredo (its server in the clear, its client inverted).
 */
const IPV4_CARRIERS: ReadonlyArray<{ cidr: [ipaddr.IPv6, number]; carried: (v6: ipaddr.IPv6) => ipaddr.IPv4[] }> = [
  { cidr: ipaddr.IPv6.parseCIDR('::/96'), carried: (v6) => [ipv4At(v6, 6)] },
  { cidr: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), carried: (v6) => [ipv4At(v6, 6)] },
  { cidr: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), carried: (v6) => [ipv4At(v6, 6)] },
  { cidr: ipaddr.IPv6.parseCIDR('2002::/16'), carried: (v6) => [ipv4At(v6, 1)] },
  { cidr: ipaddr.IPv6.parseCIDR('2001::/32'), carried: (v6) => [ipv4At(v6, 2), ipv4At(v6, 6, true)] },
];

const embeddedIPv4 = (v6: ipaddr.IPv6): ipaddr.IPv4[] => IPV4_CARRIERS.find(({ cidr }) => v6.match(cidr))?.carried(v6) ?? [];

/** The address class ipaddr.js names (`unicast` is the public one), or `invalid`. */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  const own = v6.range();
  if (own === 'unspecified' || own === 'loopback') return own;
  // A refused IPv4 inside names the refusal (`::7f00:1` is loopback), whatever the IPv6 range says.
  const refused = embeddedIPv4(v6).find((v4) => v4.range() !== 'unicast');
  if (refused) return refused.range();
  // IPv4-compatible addresses were deprecated in 2006 and no network routes them.
  if (own === 'unicast' && v6.match(IPV4_CARRIERS[0]!.cidr)) return 'ipv4Compatible';
  return own;
}

export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

export class BlockedAddressError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address} (${range}); private, loopback and link-local addresses are refused`);
    this.name = 'BlockedAddressError';
  }
}

export type UrlCheck =
  | { ok: true }
  | { ok: false; reason: 'webhook_url_private'; host: string; address: string; range: string }
  | { ok: false; reason: 'webhook_url_unresolvable'; host: string };

/** `[::1]` → `::1`: URL keeps IPv6 literals bracketed. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

const RESOLVE_TIMEOUT_MS = 5_000;

/** The creation-time check: an IP literal is judged as it is, a name by every address it resolves to. */
export async function checkWebhookUrl(url: string, allowPrivate: boolean): Promise<UrlCheck> {
  if (allowPrivate) return { ok: true };
  const host = hostOf(new URL(url));
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      const resolved = await Promise.race([
        lookup(host, { all: true, verbatim: true }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS).unref()),
      ]);
      addresses = resolved.map((a) => a.address);
    } catch {
      return { ok: false, reason: 'webhook_url_unresolvable', host };
    }
    if (addresses.length === 0) return { ok: false, reason: 'webhook_url_unresolvable', host };
  }
  for (const address of addresses) {
    const range = addressRange(address);
    if (range !== 'unicast') return { ok: false, reason: 'webhook_url_private', host, address, range };
  }
  return { ok: true };
}

/**
 * A DNS lookup for the HTTP client that fails the connection when any resolved address is
 * not public. Node calls it for host names only; IP literals are checked before the request.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) return callback(new BlockedAddressError(hostname, blocked.address, addressRange(blocked.address)) as NodeJS.ErrnoException, '', 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    return callback(null, first.address, first.family);
  });
};
