import type { CountryCode } from 'libphonenumber-js/max';
import { InvalidInputError } from '../../common/domain-error';
import { cursorFields, keysetCursor } from '../../common/keyset-cursor';
import { parsePageLimit } from '../../common/page-limit';
import { normalizePhone } from '../upload';
import {
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_TEXT,
  SEARCH_FIELDS,
  type SearchField,
} from './lead-search.constants';

/**
 * A search as a client passes it (docs/dashboard.md#leads), named like the query parameters so
 * that an {@link InvalidInputError}'s `field` is the parameter's. `undefined` means not given.
 */
export interface LeadSearchQuery {
  /** The text typed: a phone in any format of the campaign's region, an email or a name. */
  q?: string;
  /** `phone`, `email` or `name`; guessed from `q` when not given ({@link guessField}). */
  field?: string;
  /** 1 to {@link MAX_SEARCH_LIMIT}, default {@link DEFAULT_SEARCH_LIMIT}, as decimal digits. */
  limit?: string;
  /** The `next_cursor` of the previous page, unchanged. */
  cursor?: string;
}

/** Where the previous page ended, in the search's order: its sort key and the lead id. */
export interface SearchPosition {
  key: string;
  id: number;
}

/**
 * A checked search, what `LeadDirectoryRepository.search` runs:
 * - `phone`: `value` is the E.164 form; an exact match (at most one lead).
 * - `email`: `value` is the prefix as typed (trimmed); leads whose email starts with it, case
 *   aside (both sides lower-cased by PostgreSQL's `lower`, so they fold alike).
 * - `name`: likewise, with runs of white space made one space; leads whose "first last" or
 *   "last first" name starts with it.
 * Leads come in the order of their key (the E.164 phone, the lower-cased email, or the name in
 * the order that matched, compared byte by byte) then id; `after` resumes after a position.
 */
export interface LeadSearch {
  field: SearchField;
  value: string;
  limit: number;
  after: SearchPosition | null;
}

const PHONE_TEXT = /^[+0-9\s().\-/]+$/;

/** One word of what an email's local part is made of (letters, digits, `. _ % + - '`). */
const LOCAL_PART_TEXT = /^[\p{L}\p{N}._%+\-']+$/u;

/** Characters of an email's local part that a name does not hold: `_ % + .` and digits. */
const NOT_IN_A_NAME = /[_%+.\p{N}]/u;

/**
 * The field a search box's text means when the caller does not say: an `@` makes it an email,
 * text of digits and phone punctuation (`+ ( ) . - /`, spaces) a phone, one word that a name
 * would not hold but an email's start would (`kaleigh_`, `ada.lovelace`, `bob+crm`, `ada2`) the
 * start of an email, anything else a name.
 */
export function guessField(text: string): SearchField {
  if (text.includes('@')) return 'email';
  if (PHONE_TEXT.test(text) && /[0-9]/.test(text)) return 'phone';
  if (LOCAL_PART_TEXT.test(text) && NOT_IN_A_NAME.test(text)) return 'email';
  return 'name';
}

/**
 * The search's cursor: `v1:<field>:<id>:<key>`. The longest: a name key is at most 511 code
 * points (255 + 1 + 255) of at most 4 UTF-8 bytes each, and PostgreSQL's `lower` lengthens a few
 * characters; its base64url is under 4,000 characters, so 8,192 leaves room.
 */
const SEARCH_CURSOR = keysetCursor({
  prefix: 'v1:',
  separator: ':',
  fields: [cursorFields.oneOf(SEARCH_FIELDS), cursorFields.id(), cursorFields.text()],
  maxLength: 8192,
  message: 'is not a cursor of this search: pass next_cursor unchanged',
});

/**
 * The opaque cursor of the page after `last` for a search of `field`, made by
 * {@link keysetCursor}. Clients pass it back unchanged, with the same `q` and `field`.
 */
export function encodeSearchCursor(field: SearchField, last: SearchPosition): string {
  return SEARCH_CURSOR.encode([field, last.id, last.key]);
}

/**
 * Reads a cursor made by {@link encodeSearchCursor} for a search of `field`
 * (docs/security.md#cursors). The key may hold any character a lead's name or email can,
 * control characters included, but never NUL, which no lead holds and PostgreSQL refuses.
 * @throws InvalidInputError (field `cursor`) for anything else ({@link keysetCursor}): a NUL in
 *   the key, an id beyond 2^53, or a cursor of another field included.
 */
export function decodeSearchCursor(field: SearchField, cursor: string): SearchPosition {
  const [cursorField, id, key] = SEARCH_CURSOR.decode(cursor);
  if (cursorField !== field) throw SEARCH_CURSOR.invalid();
  return { key, id };
}

/**
 * Checks a search (docs/dashboard.md#leads) and turns it into what the repository runs. A phone
 * is normalised to E.164 in the campaign's region, as an upload does (`normalizePhone`), so
 * `(415) 555-0100`, `415.555.0100` and `+1 415 555 0100` find the same lead in a US campaign.
 * Pure.
 *
 * @param region the campaign's region (ISO 3166-1 alpha-2), for phones written without `+`.
 * @throws InvalidInputError whose `field` names the first bad parameter: `q` (missing, blank,
 *   over {@link MAX_SEARCH_TEXT} code points, with a NUL character, or not a valid phone number when
 *   searching phones), `field`, `limit` or `cursor`.
 */
export function parseLeadSearch(query: LeadSearchQuery, region: CountryCode): LeadSearch {
  const text = (query.q ?? '').trim().replace(/\s+/g, ' ');
  if (text === '') throw InvalidInputError.field('q', 'must be given: a phone, an email or a name');
  if ([...text].length > MAX_SEARCH_TEXT) {
    throw InvalidInputError.field('q', `must be at most ${MAX_SEARCH_TEXT} characters`);
  }
  if (text.includes('\u0000'))
    throw InvalidInputError.field('q', 'must not contain a NUL character');
  let field: SearchField;
  if (query.field === undefined) field = guessField(text);
  else if ((SEARCH_FIELDS as readonly string[]).includes(query.field)) {
    field = query.field as SearchField;
  } else throw InvalidInputError.field('field', `must be ${SEARCH_FIELDS.join(', ')}`);
  let value = text.toWellFormed();
  if (field === 'phone') {
    const phone = normalizePhone(text, region);
    if (phone === null) {
      throw InvalidInputError.field(
        'q',
        `is not a valid phone number in the campaign's region (${region}): give the whole number, in any format`,
      );
    }
    value = phone;
  }
  return {
    field,
    value,
    limit: parsePageLimit(query.limit, { fallback: DEFAULT_SEARCH_LIMIT, max: MAX_SEARCH_LIMIT }),
    after: query.cursor === undefined ? null : decodeSearchCursor(field, query.cursor),
  };
}
