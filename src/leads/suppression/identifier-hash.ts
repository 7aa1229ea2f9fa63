import { createHmac, hkdfSync } from 'node:crypto';
import type { SuppressionKind } from './suppression-entry.entity';

/** The id stored beside every hash made with the current key (docs/privacy.md#keyed-hashes). */
export const CURRENT_HASH_KEY_ID = 1;

/** HKDF's `info` for key 1: a new key id takes a new label, so its key differs. */
const KEY_LABEL = 'campaign-api/person-identifier-hash/v1';

/**
 * Derives the 32-byte key of the person identifiers' keyed hashes from `SECRETS_ENCRYPTION_KEY`
 * with HKDF-SHA-256 (docs/privacy.md#keyed-hashes): the hashes are useless without the server's
 * secret, and the secret itself is never used twice for two purposes.
 * @param secret the 32-byte `SECRETS_ENCRYPTION_KEY`.
 */
export function deriveIdentifierKey(secret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), KEY_LABEL, 32));
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
