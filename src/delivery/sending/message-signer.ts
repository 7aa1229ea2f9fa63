import { LRUCache } from 'lru-cache';
import { createHmac, createSecretKey, sign, type KeyObject } from 'node:crypto';
import { isSigningKey, signingKeyObject } from '../../webhooks';

/**
 * `whsk_` key → its parsed private key. Parsing costs about twice the signature itself, and an
 * endpoint signs with the same key for every delivery; the plaintext keys are already held in
 * memory by the secret box's cache, so this keeps nothing new.
 */
const privateKeys = new LRUCache<string, KeyObject>({ max: 10_000 });

function privateKeyOf(secretKey: string): KeyObject {
  let key = privateKeys.get(secretKey);
  if (key === undefined) {
    key = signingKeyObject(secretKey);
    privateKeys.set(secretKey, key);
  }
  return key;
}

/** A Standard Webhooks HMAC signing secret: `whsec_` and the key in standard base64. */
const HMAC_SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * `whsec_` secret → its decoded key, as Node's native HMAC takes it: an endpoint signs every
 * delivery with the same secret (plaintext already held by the secret box's cache).
 */
const hmacKeys = new LRUCache<string, KeyObject>({ max: 10_000 });

function hmacKeyOf(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (key === undefined) {
    const encoded = HMAC_SECRET.exec(secret)?.[1];
    if (!encoded) throw new Error('not a Standard Webhooks signing secret (whsec_ and base64)');
    key = createSecretKey(Buffer.from(encoded, 'base64'));
    hmacKeys.set(secret, key);
  }
  return key;
}

/**
 * The `v1,<base64 HMAC-SHA256>` entry of {@link signedContent} with a `whsec_` secret: the
 * Standard Webhooks scheme, byte for byte what the `standardwebhooks` package's
 * `Webhook.sign` gives (message-signer.spec.ts holds them equal), computed by Node's native
 * HMAC instead of that package's JavaScript SHA-256, which cost about 8 % of the worker's CPU
 * per delivery (bench/README.md, "Dispatch").
 * @throws Error when `secret` is not `whsec_` and a non-empty standard base64 key.
 */
export function hmacSignatureEntry(
  secret: string,
  id: string,
  timestamp: Date,
  body: string,
): string {
  const digest = createHmac('sha256', hmacKeyOf(secret))
    .update(signedContent(id, timestamp, body))
    .digest('base64');
  return `v1,${digest}`;
}

/**
 * The content Standard Webhooks signs (docs/webhooks.md#signing):
 * `${webhook-id}.${webhook-timestamp}.${body}`, the timestamp in whole seconds.
 */
export function signedContent(id: string, timestamp: Date, body: string): string {
  return `${id}.${Math.floor(timestamp.getTime() / 1000)}.${body}`;
}

/**
 * The base64 ed25519 signature (RFC 8032, Node's `crypto.sign(null, …)`) of `content` with the
 * `whsk_` secret key `secretKey` (docs/webhooks.md#asymmetric-signatures).
 * @throws Error when `secretKey` is not a `whsk_` key.
 */
export function ed25519Signature(secretKey: string, content: string | Buffer): string {
  return sign(null, Buffer.from(content), privateKeyOf(secretKey)).toString('base64');
}

/**
 * One `webhook-signature` entry of a message (docs/webhooks.md#signing), by the kind of key:
 * `v1,<base64 HMAC-SHA256>` for a `whsec_` secret ({@link hmacSignatureEntry}), and
 * `v1a,<base64 ed25519 signature>` for a `whsk_` secret key, both over {@link signedContent}.
 * @throws Error when the key is neither.
 */
export function signatureEntry(key: string, id: string, timestamp: Date, body: string): string {
  if (isSigningKey(key)) {
    return `v1a,${ed25519Signature(key, signedContent(id, timestamp, body))}`;
  }
  return hmacSignatureEntry(key, id, timestamp, body);
}

/**
 * The `webhook-signature` header of a message: one entry per key, space-separated, in the order
 * given (the current key, then the previous one during its 24-hour overlap, whatever scheme
 * each is of: docs/webhooks.md#changing-the-signature-scheme).
 * @throws Error when a key is neither a `whsec_` secret nor a `whsk_` secret key.
 */
export function signatureHeader(
  keys: readonly string[],
  id: string,
  timestamp: Date,
  body: string,
): string {
  return keys.map((key) => signatureEntry(key, id, timestamp, body)).join(' ');
}
