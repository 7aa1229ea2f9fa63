import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/**
 * Whether deliveries may go to `address`. Only public unicast addresses are allowed unless
 * `allowPrivate` (`WEBHOOK_ALLOW_PRIVATE_URLS`): loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved and unspecified addresses are refused (CONTRACT 8).
 */
export function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  if (allowPrivate) return true;
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
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
