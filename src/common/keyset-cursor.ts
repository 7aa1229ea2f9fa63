import { InvalidInputError } from './domain-error';
import { decodeCursorText, encodeCursorText, int8OrNull } from './opaque-cursor';

/**
 * One value of a keyset cursor (docs/security.md#cursors): how it is written in the cursor's
 * text and read back from it.
 */
export interface CursorField<T> {
  /**
   * The value's text, as a regular expression source without capture groups; the codec
   * anchors it between its neighbours.
   */
  readonly pattern: string;
  /** The value of a text that matched {@link pattern}, or null when it is out of range. */
  read(text: string): T | null;
  /** The text of a value. */
  write(value: T): string;
}

/** The values of a tuple of fields, in order: `[CursorField<string>, CursorField<number>]` → `[string, number]`. */
export type CursorValues<F extends readonly CursorField<unknown>[]> = {
  -readonly [K in keyof F]: F[K] extends CursorField<infer T> ? T : never;
};

const text = (value: string) => value;

/** The fields a keyset cursor is made of. Each refuses what a query would fail on. */
export const cursorFields = {
  /**
   * A PostgreSQL `bigint` without sign (a time in µs since the epoch, say), as the decimal
   * text PostgreSQL prints (`bigint::text`): `0` or digits without a leading zero, at most 2^63 − 1.
   */
  int8: (): CursorField<string> => ({
    pattern: '0|[1-9][0-9]{0,18}',
    read: (digits) => (int8OrNull(digits) === null ? null : digits),
    write: text,
  }),
  /** As {@link cursorFields.int8}, with a `-` allowed (never `-0`), down to −2^63. */
  signedInt8: (): CursorField<string> => ({
    pattern: '0|-?[1-9][0-9]{0,18}',
    read: (digits) => (int8OrNull(digits) === null ? null : digits),
    write: text,
  }),
  /** A row id: an integer from 1 to 2^53 − 1 (`Number.MAX_SAFE_INTEGER`). */
  id: (): CursorField<number> => ({
    pattern: '[1-9][0-9]{0,15}',
    read: (digits) => (Number.isSafeInteger(Number(digits)) ? Number(digits) : null),
    write: String,
  }),
  /**
   * An integer from 0 with at most `maxDigits` digits, without a leading zero (9 keeps it
   * within PostgreSQL's `integer`).
   */
  natural: (maxDigits: number): CursorField<number> => ({
    pattern: `0|[1-9][0-9]{0,${maxDigits - 1}}`,
    read: Number,
    write: String,
  }),
  /** A UUID in lower case, as PostgreSQL prints a `uuid`. */
  uuid: (): CursorField<string> => ({
    pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
    read: text,
    write: text,
  }),
  /** One of a few words (a search's field, say). */
  oneOf: <const W extends string>(words: readonly W[]): CursorField<W> => ({
    pattern: words.map(escapeRegExp).join('|'),
    read: (word) => word as W,
    write: text,
  }),
  /**
   * Any text but NUL (a sort key: a lower-cased name or email), control characters and
   * separators included: only as the last field, where it takes the rest of the cursor.
   */
  text: (): CursorField<string> => ({ pattern: '[\\s\\S]*', read: text, write: text }),
};

/** What a list's keyset cursor is made of ({@link keysetCursor}). */
export interface KeysetCursorFormat<F extends readonly CursorField<unknown>[]> {
  /** The text before the first field: a version (`v1:`), a kind (`r`), or nothing. */
  prefix: string;
  /** The text between two fields (`:` or `.`); no field may match it but the last. */
  separator: string;
  /** The fields, in order ({@link cursorFields}). */
  fields: F;
  /** The longest cursor, in characters, the list can make: a longer one is refused unread. */
  maxLength: number;
  /**
   * The refusal's message after the field name, `cursor` (`is not a cursor of this list`): what
   * a client reads in the `422 validation_failed` answer.
   */
  message: string;
}

/** A list's keyset cursor: a tuple of values ({@link CursorValues}) in an opaque string. */
export interface KeysetCursor<V> {
  /** The opaque cursor of `values`: base64url, without padding, of the text. */
  encode(values: V): string;
  /**
   * The values of a cursor made by {@link encode}.
   * @throws InvalidInputError (field `cursor`, the format's message) for anything else.
   */
  decode(cursor: string): V;
  /** The refusal {@link decode} throws, for a check of the caller's own on the values. */
  invalid(): InvalidInputError;
}

/**
 * The codec of one list's keyset cursor (docs/security.md#cursors): the text
 * `<prefix><field><separator><field>…`, carried as the canonical base64url, without padding,
 * of its UTF-8 bytes ({@link encodeCursorText}). Decoding refuses, with one
 * `InvalidInputError` naming `cursor`, whatever the list did not make, before any of it
 * reaches a query: a string that is not the canonical encoding of UTF-8 text without NUL or is
 * longer than `maxLength` ({@link decodeCursorText}), a text that does not match the format
 * from end to end, or a value out of its field's range (a time beyond `bigint`, an id beyond
 * 2^53).
 *
 * @example
 * const LOG_CURSOR = keysetCursor({
 *   prefix: 'v1:', separator: ':', maxLength: 64,
 *   fields: [cursorFields.signedInt8(), cursorFields.id()],
 *   message: 'is not a cursor of this log: pass next_cursor unchanged',
 * });
 * LOG_CURSOR.encode(['1795500000123456', 42]); // base64url of 'v1:1795500000123456:42'
 */
export function keysetCursor<const F extends readonly CursorField<unknown>[]>(
  format: KeysetCursorFormat<F>,
): KeysetCursor<CursorValues<F>> {
  const { prefix, separator, fields, maxLength, message } = format;
  const pattern = new RegExp(
    `^${escapeRegExp(prefix)}${fields.map((field) => `(${field.pattern})`).join(escapeRegExp(separator))}$`,
  );
  const invalid = () => InvalidInputError.field('cursor', message);
  return {
    encode: (values) =>
      encodeCursorText(
        prefix + fields.map((field, i) => field.write(values[i] as never)).join(separator),
      ),
    decode: (cursor) => {
      const decoded = decodeCursorText(cursor, maxLength);
      const match = decoded === null ? null : pattern.exec(decoded);
      if (!match) throw invalid();
      const values = fields.map((field, i) => field.read(match[i + 1]));
      if (values.includes(null)) throw invalid();
      return values as CursorValues<F>;
    },
    invalid,
  };
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
