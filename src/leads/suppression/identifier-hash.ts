import { createCipheriv, createHmac, hkdfSync } from 'node:crypto';
import type { SuppressionKind } from './suppression-entry.entity';

/** The id stored beside every hash made with the current key (docs/privacy.md#keyed-hashes). */
export const CURRENT_HASH_KEY_ID = 1;

/** HKDF's `info` for key 1: a new key id takes a new label, so its key differs. */
const KEY_LABEL = 'campaign-api/person-identifier-hash/v1';
/** HKDF's `info` for the fingerprints' seed under key 1. */
const FINGERPRINT_LABEL = 'campaign-api/person-identifier-fingerprint/v1';

/**
 * Derives the 32-byte key of the person identifiers' keyed hashes from `SECRETS_ENCRYPTION_KEY`
 * with HKDF-SHA-256 (docs/privacy.md#keyed-hashes): the hashes are useless without the server's
 * secret, and the secret itself is never used twice for two purposes.
 * @param secret the 32-byte `SECRETS_ENCRYPTION_KEY`.
 */
export function deriveIdentifierKey(secret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_LABEL, 32));
}

/** The keys of the identifiers' fingerprints (docs/privacy.md#fingerprints). */
export interface FingerprintKeys {
  /** xxHash32 seeds, one per kind. */
  seeds: Record<SuppressionKind, number>;
  /** The AES-128 key that seals each stored fingerprint. */
  sealKey: Buffer;
}

/**
 * Derives the fingerprints' seeds and sealing key from `SECRETS_ENCRYPTION_KEY` with
 * HKDF-SHA-256 (docs/privacy.md#fingerprints), under a label of their own: knowing them tells
 * nothing of the hashes' key.
 * @param secret the 32-byte `SECRETS_ENCRYPTION_KEY`.
 */
export function deriveFingerprintKeys(secret: Buffer): FingerprintKeys {
  const bytes = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), FINGERPRINT_LABEL, 24));
  return {
    seeds: { phone: bytes.readUInt32BE(0), email: bytes.readUInt32BE(4) },
    sealKey: bytes.subarray(8, 24),
  };
}

/** Bytes of one stored fingerprint record read back: the hash's first 16 bytes, then the sealed value. */
export const SEALED_RECORD_BYTES = 20;

/**
 * The masks of fingerprints stored beside `hashes`: the first 4 bytes of AES-128 of each
 * hash's first 16 bytes, one cipher call for all (docs/privacy.md#fingerprints). A hash is
 * unique in its list, so each mask is used once: a stored fingerprint XOR its mask reveals
 * nothing without the key.
 * @param hashes16 the hashes' first 16 bytes, one after another.
 * @returns the masks, unsigned, in order.
 */
export function fingerprintMasks(sealKey: Buffer, hashes16: Buffer): Uint32Array {
  if (hashes16.length === 0) return new Uint32Array(0);
  const cipher = createCipheriv('aes-128-ecb', sealKey, null).setAutoPadding(false);
  const blocks = Buffer.concat([cipher.update(hashes16), cipher.final()]);
  const masks = new Uint32Array(blocks.length / 16);
  for (let i = 0; i < masks.length; i++) masks[i] = blocks.readUInt32BE(i * 16);
  return masks;
}

/**
 * The keyed hash of one normalised identifier: HMAC-SHA-256 over `<kind>:<value>`, 32 bytes.
 * @param value an E.164 phone (`+14155550199`) or a trimmed, lower-cased email.
 */
export function identifierHash(key: Buffer, kind: SuppressionKind, value: string): Buffer {
  return createHmac('sha256', key).update(`${kind}:${value}`).digest();
}

/** An email as hashed and compared: trimmed and lower-cased (docs/privacy.md#keyed-hashes). */
export function normalizeEmailForHash(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The fingerprints of records read back from the list (each {@link SEALED_RECORD_BYTES}
 * bytes: a hash's first 16 bytes, then its sealed fingerprint, big-endian), unsealed.
 */
export function unsealFingerprints(sealKey: Buffer, records: Buffer): Uint32Array {
  const count = Math.floor(records.length / SEALED_RECORD_BYTES);
  const hashes16 = Buffer.allocUnsafe(count * 16);
  for (let i = 0; i < count; i++) {
    records.copy(hashes16, i * 16, i * SEALED_RECORD_BYTES, i * SEALED_RECORD_BYTES + 16);
  }
  const masks = fingerprintMasks(sealKey, hashes16);
  for (let i = 0; i < count; i++) {
    masks[i] ^= records.readUInt32BE(i * SEALED_RECORD_BYTES + 16);
  }
  return masks;
}

/** Each entry's fingerprint sealed for storage: XOR the mask of its hash, as a signed int4. */
export function sealFingerprints(
  sealKey: Buffer,
  entries: ReadonlyArray<{ hash: Buffer; fingerprint: number }>,
): number[] {
  const masks = fingerprintMasks(
    sealKey,
    Buffer.concat(entries.map((e) => e.hash.subarray(0, 16))),
  );
  return entries.map((e, i) => (e.fingerprint ^ masks[i]) | 0);
}
