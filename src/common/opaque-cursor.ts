/**
 * The envelope of every keyset cursor the service hands out (docs/security.md#cursors): the
 * base64url (no padding) of a UTF-8 text that only the list which made it can read. Each list
 * describes its text with `keysetCursor` (./keyset-cursor.ts), built on this module, so that a
 * cursor a client forged or altered is refused the same way everywhere: as invalid input, never
 * as a value PostgreSQL would refuse (a 500).
 */

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Largest value of a PostgreSQL `bigint` (`int8`). */
export const MAX_INT8 = 2n ** 63n - 1n;
/** Smallest value of a PostgreSQL `bigint` (`int8`). */
export const MIN_INT8 = -(2n ** 63n);

/** A cursor's text as the client receives it: base64url of its UTF-8 bytes, no padding. */
export function encodeCursorText(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/**
 * The text of a cursor made by {@link encodeCursorText}, or null when `cursor` cannot be one:
 * - empty, longer than `maxLength` characters, or with a character outside the base64url
 *   alphabet (padding `=` included);
 * - not the canonical encoding of its bytes (a length of 4n + 1, stray low bits in the last
 *   character): each text has exactly one cursor, so a cursor altered by a character is refused
 *   rather than read as a neighbour;
 * - bytes that are not UTF-8 (they would decode to U+FFFD, whose encoding differs);
 * - a NUL character, which no PostgreSQL `text` value can hold.
 *
 * What the text must look like is the caller's to check, with a pattern anchored at both ends.
 *
 * @param maxLength the longest cursor, in characters, that the caller's codec can produce.
 */
export function decodeCursorText(cursor: string, maxLength: number): string | null {
  if (cursor.length === 0 || cursor.length > maxLength || !BASE64URL.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (encodeCursorText(text) !== cursor || text.includes('\u0000')) return null;
  return text;
}

/**
 * A signed decimal integer of a cursor as a `bigint`, or null when it is outside PostgreSQL's
 * `bigint` range (the text's pattern has already checked its digits).
 */
export function int8OrNull(digits: string): bigint | null {
  const value = BigInt(digits);
  return value < MIN_INT8 || value > MAX_INT8 ? null : value;
}
