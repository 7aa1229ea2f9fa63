import { LRUCache } from 'lru-cache';
import { sign, type KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
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

/**
 * `whsec_` secret → its `standardwebhooks` signer, which holds the decoded key: an endpoint
 * signs every delivery with the same secret (plaintext already held by the secret box's cache).
 */
const hmacSigners = new LRUCache<string, Webhook>({ max: 10_000 });

function hmacSignerOf(secret: string): Webhook {
  let signer = hmacSigners.get(secret);
  if (signer === undefined) {
    signer = new Webhook(secret);
    hmacSigners.set(secret, signer);
  }
  return signer;
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
 * `v1,<base64 HMAC-SHA256>` for a `whsec_` secret (the `standardwebhooks` package), and
 * `v1a,<base64 ed25519 signature>` for a `whsk_` secret key, both over {@link signedContent}.
 * @throws Error when the key is neither.
 */
export function signatureEntry(key: string, id: string, timestamp: Date, body: string): string {
  if (isSigningKey(key)) {
    return `v1a,${ed25519Signature(key, signedContent(id, timestamp, body))}`;
  }
  return hmacSignerOf(key).sign(id, timestamp, body);
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
