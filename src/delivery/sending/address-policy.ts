import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/**
 * IPv6 prefixes that embed an IPv4 address in a way this policy does not follow: the
 * deprecated IPv4-compatible ::/96 (RFC 4291; `::127.0.0.1` is `::7f00:1`), IPv4-translated
 * ::ffff:0:0:0/96 (RFC 6145), local-use NAT64 64:ff9b:1::/48 (RFC 8215, where the IPv4 part's
 * place depends on the operator's prefix length), 6to4 2002::/16 (RFC 3056, deprecated by RFC
 * 7526) and Teredo 2001::/32 (RFC 4380). Addresses in them are refused outright.
 */
const REFUSED_IPV4_EMBEDDING_PREFIXES = [
  '::/96',
  '::ffff:0:0:0/96',
  '64:ff9b:1::/48',
  '2002::/16',
  '2001::/32',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));
/** Well-known NAT64 prefix (RFC 6052): the last 32 bits are the IPv4 address reached. */
const NAT64_WELL_KNOWN_PREFIX = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

/**
 * Whether deliveries may go to `address`. Only public unicast addresses are allowed unless
 * `allowPrivate` (`WEBHOOK_ALLOW_PRIVATE_URLS`): loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved and unspecified addresses are refused (docs/configuration.md).
 * An IPv6 address that embeds an IPv4 address is judged by that IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) or refused outright (IPv4-compatible `::a.b.c.d`,
 * IPv4-translated, local-use NAT64, 6to4, Teredo), so no spelling of a private IPv4 address
 * gets through.
 *
 * @param address an IPv4 or IPv6 address as resolved (an IPv6 zone index is allowed);
 *   anything that is not an IP address is refused.
 */
export function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  if (allowPrivate) return true;
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return isPublicIPv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    // ipaddr.js reads the deprecated IPv4-compatible `::a.b.c.d` as mapped `::ffff:a.b.c.d`;
    // a mapped address always spells out its ffff group, so without one it is IPv4-compatible.
    if (!/ffff/i.test(address)) return false;
    return isPublicIPv4(v6.toIPv4Address());
  }
  if (v6.match(NAT64_WELL_KNOWN_PREFIX)) {
    const bytes = v6.toByteArray();
    return isPublicIPv4(new ipaddr.IPv4(bytes.slice(12)));
  }
  if (REFUSED_IPV4_EMBEDDING_PREFIXES.some((prefix) => v6.match(prefix))) return false;
  return v6.range() === 'unicast';
}

/** A delivery refused by the address policy. */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to ${address}, which is not a public address`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for sockets that resolves the host and refuses it when any of its addresses is
 * not allowed. The socket connects to the addresses checked here, so a DNS answer that
 * changes between check and connect (rebinding) cannot reach a private address.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { ...(options as object), all: true } as LookupAllOptions,
      (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 0);
        const refused = addresses.find((a) => !isAllowedAddress(a.address, allowPrivate));
        if (refused) return callback(new RefusedAddressError(hostname, refused.address), '', 0);
        if ((options as { all?: boolean }).all) {
          return (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(
            null,
            addresses,
          );
        }
        return callback(null, addresses[0].address, addresses[0].family);
      },
    );
  };
}

/**
 * Checks a URL whose host is an IP literal (sockets skip `lookup` for those).
 * @throws RefusedAddressError when the literal is not allowed.
 */
export function assertLiteralHostAllowed(url: URL, allowPrivate: boolean): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isAllowedAddress(host, allowPrivate))
    throw new RefusedAddressError(url.hostname, host);
}
