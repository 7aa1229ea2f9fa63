import { InvalidInputError } from '../common/domain-error';
import { decodeCursorText, encodeCursorText, int8OrNull } from '../common/opaque-cursor';

/** A position in the audit log, newest first: the last entry of a page. */
export interface AuditCursor {
  /** `created_at` in whole microseconds since the epoch (PostgreSQL's precision). */
  createdAtMicros: bigint;
  id: number;
}

const CURSOR_PATTERN = /^(0|[1-9]\d{0,18})\.([1-9]\d{0,15})$/;
const MAX_CURSOR_LENGTH = 64;

/** The opaque `next_cursor` of a page: base64url of `<micros>.<id>` ({@link encodeCursorText}). */
export function encodeAuditCursor(cursor: AuditCursor): string {
  return encodeCursorText(`${cursor.createdAtMicros}.${cursor.id}`);
}

/**
 * Reads a `cursor` given back by a client (docs/security.md#cursors).
 * @throws InvalidInputError (field `cursor`) when it is not one this service made: not the
 *   canonical base64url of UTF-8 text ({@link decodeCursorText}), another text, a time beyond
 *   PostgreSQL's `bigint` or an id beyond 2^53.
 */
export function decodeAuditCursor(value: string): AuditCursor {
  const text = decodeCursorText(value, MAX_CURSOR_LENGTH);
  const match = text === null ? null : CURSOR_PATTERN.exec(text);
  const createdAtMicros = match ? int8OrNull(match[1]) : null;
  if (!match || createdAtMicros === null || !Number.isSafeInteger(Number(match[2]))) {
    throw InvalidInputError.field('cursor', 'is not a cursor of this list');
  }
  return { createdAtMicros, id: Number(match[2]) };
}
