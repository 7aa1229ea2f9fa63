import { hash, randomBytes } from 'node:crypto';

import { API_KEY_PREFIX } from '../common/secret-prefixes';

/** Characters of the key kept in clear as its display prefix. */
const DISPLAY_PREFIX_LENGTH = 12;

/**
 * Makes a new API key: `capi_` + 32 random bytes in base64url (256 bits of randomness).
 * @returns the key (shown once), its SHA-256 hex hash (stored) and its display prefix.
 */
export function generateApiKey(): { key: string; hash: string; displayPrefix: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** Lower-case hex SHA-256 of an API key, the only form in which keys are stored. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex'); // one-shot: no Hash object per call
}
