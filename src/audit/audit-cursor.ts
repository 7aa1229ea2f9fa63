import { cursorFields, keysetCursor } from '../common/keyset-cursor';

/** A position in the audit log, newest first: the last entry of a page. */
export interface AuditCursor {
  /** `created_at` in whole microseconds since the epoch (PostgreSQL's precision). */
  createdAtMicros: bigint;
  id: number;
}

/** The audit log's cursor: `<created_at in µs since the epoch>.<id>`. */
const AUDIT_CURSOR = keysetCursor({
  prefix: '',
  separator: '.',
  fields: [cursorFields.int8(), cursorFields.id()],
  maxLength: 64,
  message: 'is not a cursor of this list',
});

/** The opaque `next_cursor` of a page, made by {@link keysetCursor}. */
export function encodeAuditCursor(cursor: AuditCursor): string {
  return AUDIT_CURSOR.encode([String(cursor.createdAtMicros), cursor.id]);
}

/**
 * Reads a `cursor` given back by a client (docs/security.md#cursors).
 * @throws InvalidInputError (field `cursor`) when it is not one this service made
 *   ({@link keysetCursor}): a time beyond PostgreSQL's `bigint` or an id beyond 2^53 included.
 */
export function decodeAuditCursor(value: string): AuditCursor {
  const [micros, id] = AUDIT_CURSOR.decode(value);
  return { createdAtMicros: BigInt(micros), id };
}
