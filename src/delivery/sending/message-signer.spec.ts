import { createPublicKey, randomBytes, sign as cryptoSign, verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  generateSigningKeyPair,
  publicKeyOf,
  signingKeyObject,
  verifyingKeyObject,
} from '../../webhooks';
import { ed25519Signature, signatureEntry, signatureHeader, signedContent } from './message-signer';

const hex = (value: string) => Buffer.from(value, 'hex');
const whsk = (seedHex: string) => `whsk_${hex(seedHex).toString('base64')}`;
const whpk = (rawHex: string) => `whpk_${hex(rawHex).toString('base64')}`;

/** RFC 8032 §7.1, tests 1 and 2: seed (the secret key), public key, message, signature. */
const RFC8032 = [
  {
    name: 'TEST 1 (empty message)',
    seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2 (one byte, 0x72)',
    seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

/**
 * A receiver's own check, independent of the signer: a KeyObject built from the raw public key
 * as a JWK (`{kty: 'OKP', crv: 'Ed25519', x}`), then `crypto.verify`.
 */
function receiverVerifies(publicKey: string, content: string, signatureBase64: string): boolean {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  return verify(null, Buffer.from(content), key, Buffer.from(signatureBase64, 'base64'));
}

describe('ed25519 keys and signatures (docs/webhooks.md#asymmetric-signatures)', () => {
  describe.each(RFC8032)('RFC 8032 $name', (vector) => {
    it('derives the vector’s public key from its seed', () => {
      expect(publicKeyOf(whsk(vector.seed))).toBe(whpk(vector.publicKey));
    });

    it('signs the vector’s message with the vector’s signature', () => {
      expect(ed25519Signature(whsk(vector.seed), hex(vector.message))).toBe(
        hex(vector.signature).toString('base64'),
      );
    });

    it('verifies the vector’s signature with the whpk_ key', () => {
      const key = verifyingKeyObject(whpk(vector.publicKey));
      expect(verify(null, hex(vector.message), key, hex(vector.signature))).toBe(true);
    });
  });

  it('generates whsk_ and whpk_ keys of 32 bytes each, the public key that of the secret key', () => {
    const pair = generateSigningKeyPair();
    expect(pair.secretKey).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(pair.secretKey.slice(5), 'base64')).toHaveLength(32);
    expect(Buffer.from(pair.publicKey.slice(5), 'base64')).toHaveLength(32);
    expect(publicKeyOf(pair.secretKey)).toBe(pair.publicKey);
    expect(generateSigningKeyPair().secretKey).not.toBe(pair.secretKey);
  });

  it.each([
    ['no prefix', Buffer.alloc(32, 1).toString('base64')],
    ['the HMAC prefix', `whsec_${Buffer.alloc(32, 1).toString('base64')}`],
    ['31 bytes', `whsk_${Buffer.alloc(31, 1).toString('base64')}`],
    ['33 bytes', `whsk_${Buffer.alloc(33, 1).toString('base64')}`],
    ['not base64', 'whsk_!!!!'],
  ])('refuses a secret key with %s, without quoting it', (_name, key) => {
    expect(() => signingKeyObject(key)).toThrow(/^not a Standard Webhooks ed25519 secret key/);
    try {
      signingKeyObject(key);
    } catch (error) {
      expect((error as Error).message).not.toContain(key.slice(5, 15));
    }
  });
});

describe('message signatures (docs/webhooks.md#signing)', () => {
  const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const at = new Date('2026-11-27T10:00:00.750Z');
  const body = '{"type":"lead.created","timestamp":"2026-11-27T10:00:00.000Z","data":{"id":1}}';
  const content = `${id}.${Math.floor(at.getTime() / 1000)}.${body}`;
  const hmacSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

  it('signs `${webhook-id}.${webhook-timestamp}.${body}` with the timestamp in whole seconds', () => {
    expect(signedContent(id, at, body)).toBe(content);
  });

  it('a v1a entry is `v1a,` and the base64 ed25519 signature a receiver verifies with crypto.verify', () => {
    const pair = generateSigningKeyPair();
    const entry = signatureEntry(pair.secretKey, id, at, body);
    expect(entry).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const signature = entry.slice('v1a,'.length);
    expect(receiverVerifies(pair.publicKey, content, signature)).toBe(true);
    expect(receiverVerifies(pair.publicKey, content.replace('"id":1', '"id":2'), signature)).toBe(
      false,
    );
    expect(receiverVerifies(generateSigningKeyPair().publicKey, content, signature)).toBe(false);
    // The same bytes Node signs directly with the key: nothing else is mixed in.
    expect(signature).toBe(
      cryptoSign(null, Buffer.from(content), signingKeyObject(pair.secretKey)).toString('base64'),
    );
  });

  it('signs with the RFC 8032 test 1 key deterministically (ed25519 has no randomness)', () => {
    const key = whsk(RFC8032[0].seed);
    const entry = signatureEntry(key, id, at, body);
    expect(signatureEntry(key, id, at, body)).toBe(entry);
    expect(receiverVerifies(whpk(RFC8032[0].publicKey), content, entry.slice(4))).toBe(true);
  });

  it.each([
    ['a JSON body', hmacSecret, body],
    ['an empty body', hmacSecret, ''],
    ['a body of non-ASCII text', hmacSecret, '{"name":"Zoë Ørsted 山田 🚀"}'],
    ['a 24-byte secret', `whsec_${Buffer.alloc(24, 200).toString('base64')}`, body],
    ['a 64-byte random secret', `whsec_${randomBytes(64).toString('base64')}`, body.repeat(100)],
  ])(
    'a v1 entry is the standardwebhooks package’s HMAC signature, byte for byte (%s)',
    (_, secret, text) => {
      expect(signatureEntry(secret, id, at, text)).toBe(new Webhook(secret).sign(id, at, text));
    },
  );

  it.each([
    ['no key after the prefix', 'whsec_'],
    ['a key that is not base64', 'whsec_not base64!'],
    [
      'a key without its padding',
      `whsec_${Buffer.alloc(31, 1).toString('base64').replace(/=+$/, '')}`,
    ],
  ])('refuses a whsec_ secret with %s', (_, secret) => {
    expect(() => signatureEntry(secret, id, at, body)).toThrow(
      /^not a Standard Webhooks signing secret/,
    );
  });

  it('one entry per key, space-separated, in the order given, whatever the scheme of each', () => {
    const current = generateSigningKeyPair();
    const previous = generateSigningKeyPair();
    const header = signatureHeader(
      [current.secretKey, hmacSecret, previous.secretKey],
      id,
      at,
      body,
    );
    const entries = header.split(' ');
    expect(entries.map((entry) => entry.split(',')[0])).toEqual(['v1a', 'v1', 'v1a']);
    expect(receiverVerifies(current.publicKey, content, entries[0].slice(4))).toBe(true);
    expect(receiverVerifies(previous.publicKey, content, entries[2].slice(4))).toBe(true);
    // A v1 receiver skips the v1a entries and still verifies its own.
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': header,
    };
    jest.useFakeTimers({ now: at });
    try {
      expect(new Webhook(hmacSecret).verify(body, headers)).toEqual(JSON.parse(body));
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses a key of neither kind', () => {
    expect(() => signatureHeader(['whsk_short'], id, at, body)).toThrow();
  });
});
