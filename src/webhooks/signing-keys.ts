import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { PUBLIC_KEY_PREFIX, SIGNING_KEY_PREFIX } from '../common/secret-prefixes';

/*
 * The Standard Webhooks asymmetric keys (docs/webhooks.md#asymmetric-signatures), with Node's
 * own ed25519 (RFC 8032) and nothing hand-rolled: a secret key is `whsk_` + base64 of the
 * 32-byte seed (RFC 8032's private key), a public key `whpk_` + base64 of the raw 32-byte key.
 * Shared by the endpoints' module (which makes the keys) and the delivery worker (which signs
 * with them), so it sits here, below both.
 */

/** Bytes of an ed25519 seed and of a raw public key. */
const KEY_BYTES = 32;

/**
 * The PKCS#8 DER header of an ed25519 private key (RFC 8410 §7): followed by the 32-byte seed,
 * it is the whole key. Node imports a seed-only key this way (its JWK import wants `x` too).
 */
const PKCS8_ED25519_HEADER = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An endpoint's ed25519 key pair, serialized as Standard Webhooks shows keys. */
export interface SigningKeyPair {
  /** `whsk_…`: stored only encrypted, never shown. */
  secretKey: string;
  /** `whpk_…`: what receivers verify with. */
  publicKey: string;
}

/** A new random ed25519 key pair (`generateKeyPairSync('ed25519')`). */
export function generateSigningKeyPair(): SigningKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'jwk' }).d!;
  const raw = publicKey.export({ format: 'jwk' }).x!;
  return {
    secretKey: SIGNING_KEY_PREFIX + Buffer.from(seed, 'base64url').toString('base64'),
    publicKey: PUBLIC_KEY_PREFIX + Buffer.from(raw, 'base64url').toString('base64'),
  };
}

/** Whether `key` is a `whsk_` secret key (and not a `whsec_` HMAC secret). */
export function isSigningKey(key: string): boolean {
  return key.startsWith(SIGNING_KEY_PREFIX);
}

/**
 * The private key of a `whsk_` secret key, for `crypto.sign(null, content, key)`.
 * @throws Error when `secretKey` is not `whsk_` + base64 of 32 bytes.
 */
export function signingKeyObject(secretKey: string): KeyObject {
  const seed = decodeKey(secretKey, SIGNING_KEY_PREFIX, 'secret key');
  return createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_HEADER, seed]),
    format: 'der',
    type: 'pkcs8',
  });
}

/**
 * The `whpk_` public key of a `whsk_` secret key.
 * @throws Error when `secretKey` is not `whsk_` + base64 of 32 bytes.
 */
export function publicKeyOf(secretKey: string): string {
  const raw = createPublicKey(signingKeyObject(secretKey)).export({ format: 'jwk' }).x!;
  return PUBLIC_KEY_PREFIX + Buffer.from(raw, 'base64url').toString('base64');
}

/**
 * The public key of a `whpk_` key, for `crypto.verify(null, content, key, signature)`: what a
 * receiver does (docs/webhooks.md#asymmetric-signatures).
 * @throws Error when `publicKey` is not `whpk_` + base64 of 32 bytes.
 */
export function verifyingKeyObject(publicKey: string): KeyObject {
  const raw = decodeKey(publicKey, PUBLIC_KEY_PREFIX, 'public key');
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
}

function decodeKey(key: string, prefix: string, what: string): Buffer {
  const body = key.startsWith(prefix) ? key.slice(prefix.length) : '';
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length !== KEY_BYTES || bytes.toString('base64') !== body) {
    throw new Error(
      `not a Standard Webhooks ed25519 ${what} (its prefix, then base64 of 32 bytes)`,
    );
  }
  return bytes;
}
