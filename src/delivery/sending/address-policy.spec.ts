import { assertLiteralHostAllowed, isAllowedAddress, RefusedAddressError } from './address-policy';

/** Loopback, private and otherwise non-public addresses, in many spellings. */
const REFUSED_ADDRESSES = [
  '127.0.0.1',
  '127.1',
  '0x7f.1',
  '2130706433',
  '127.255.255.254',
  '::1',
  '0:0:0:0:0:0:0:1',
  // IPv4-compatible (deprecated): `::127.0.0.1` is normalised to `::7f00:1`.
  '::127.0.0.1',
  '::7f00:1',
  '::8.8.8.8',
  // IPv4-mapped.
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  // IPv4-translated (RFC 6145).
  '::ffff:0:7f00:1',
  // NAT64 with a private IPv4 address; local-use NAT64 whatever it embeds.
  '64:ff9b::7f00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b::a00:1',
  '64:ff9b:1::7f00:1',
  '64:ff9b:1::808:808',
  // 6to4 and Teredo, whatever they embed.
  '2002:7f00:1::',
  '2002:808:808::1',
  '2001:0:7f00:1::1',
  '2001::ffff:ffff',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd12:3456:789a::1',
  'ff02::1',
  '169.254.169.254',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '100.64.0.1',
  '0.0.0.0',
  '255.255.255.255',
  '224.0.0.1',
  '192.0.2.1',
  '::',
  '2001:db8::1',
  'localhost',
  'not an address',
];

const ALLOWED_ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  // IPv4-mapped and NAT64 forms of a public address are judged by that address.
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

/** URLs whose host is a non-public literal, as a customer might type them. */
const REFUSED_URLS = [
  'http://127.0.0.1:3555/',
  'http://127.1/',
  'http://0x7f.1/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://[::1]/',
  'http://[::127.0.0.1]:3555/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::7f00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://[::]/',
];

describe('isAllowedAddress (docs/configuration.md)', () => {
  it.each(REFUSED_ADDRESSES)('refuses %s', (address) => {
    expect(isAllowedAddress(address, false)).toBe(false);
  });

  it.each(ALLOWED_ADDRESSES)('allows %s', (address) => {
    expect(isAllowedAddress(address, false)).toBe(true);
  });

  it('allows everything when private URLs are allowed', () => {
    expect(isAllowedAddress('::127.0.0.1', true)).toBe(true);
    expect(isAllowedAddress('127.0.0.1', true)).toBe(true);
  });
});

describe('assertLiteralHostAllowed (URL normalisation)', () => {
  it.each(REFUSED_URLS)('refuses %s', (url) => {
    expect(() => assertLiteralHostAllowed(new URL(url), false)).toThrow(RefusedAddressError);
  });

  it.each([
    'http://8.8.8.8/hooks',
    'https://[2606:4700:4700::1111]/hooks',
    'http://[::ffff:8.8.8.8]/',
    'https://example.com/hooks',
  ])('allows %s', (url) => {
    expect(() => assertLiteralHostAllowed(new URL(url), false)).not.toThrow();
  });

  it('names the normalised address it refused', () => {
    expect(() => assertLiteralHostAllowed(new URL('http://[::127.0.0.1]:3555/'), false)).toThrow(
      /::7f00:1/,
    );
  });
});
