import { InvalidInputError } from '../common/domain-error';

/** A position in the audit log, newest first: the last entry of a page. */
export interface AuditCursor {
  /** `created_at` in whole microseconds since the epoch (PostgreSQL's precision). */
  createdAtMicros: bigint;
  id: number;
}

const CURSOR_PATTERN = /^(\d{1,19})\.([1-9]\d{0,15})$/;

/** The opaque `next_cursor` of a page: base64url of `<micros>.<id>`. */
export function encodeAuditCursor(cursor: AuditCursor): string {
  return Buffer.from(`${cursor.createdAtMicros}.${cursor.id}`, 'utf8').toString('base64url');
}

/**
 * Reads a `cursor` given back by a client.
 * @throws InvalidInputError (field `cursor`) when it is not one this service made.
 */
export function decodeAuditCursor(value: string): AuditCursor {
  const match =
    value.length <= 64 && /^[A-Za-z0-9_-]+$/.test(value)
      ? CURSOR_PATTERN.exec(Buffer.from(value, 'base64url').toString('utf8'))
      : null;
  if (!match || !Number.isSafeInteger(Number(match[2]))) {
    throw InvalidInputError.field('cursor', 'is not a cursor of this list');
  }
  return { createdAtMicros: BigInt(match[1]), id: Number(match[2]) };
}
