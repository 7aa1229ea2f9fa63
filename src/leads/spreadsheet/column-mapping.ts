import Fuse from 'fuse.js';
import { InvalidInputError } from '../../common/domain-error';
// The field list itself, not the leads face: the parse thread loads this file (rule `parse-thread-lean`).
import { LEAD_FIELDS, type LeadField } from '../lead-fields.constants';
import type { ColumnMapping } from '..';

/**
 * Header names people give each lead field in CRM exports and hand-made sheets, compared after
 * {@link normalizeHeader}: the first list entry is the field's own name.
 */
export const FIELD_SYNONYMS: Readonly<Record<LeadField, readonly string[]>> = {
  phone: [
    'phone',
    'phone number',
    'mobile',
    'mobile phone',
    'mobile number',
    'cell',
    'cell phone',
    'cellphone',
    'telephone',
    'tel',
    'contact number',
    'phone no',
    'whatsapp',
  ],
  first_name: ['first name', 'firstname', 'given name', 'forename', 'first'],
  last_name: ['last name', 'lastname', 'surname', 'family name', 'last'],
  email: ['email', 'e mail', 'email address', 'e mail address', 'mail', 'work email'],
  company: [
    'company',
    'company name',
    'organization',
    'organisation',
    'organization name',
    'account name',
    'employer',
    'business name',
  ],
  title: ['title', 'job title', 'position', 'role', 'job role', 'designation'],
};

/** How far (Fuse.js score, 0 exact … 1 anything) a header may be from a synonym to match it. */
const MATCH_THRESHOLD = 0.4;

/**
 * The longest header (after {@link normalizeHeader}) matched against the synonyms, in
 * characters: no synonym is near this long, and fuzzy matching costs time in the header's length.
 */
export const MAX_MATCHED_HEADER_CHARS = 64;

/** A header as compared: lower case, every run of non-letters and non-digits one space. */
export function normalizeHeader(header: string): string {
  return header
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The mapping a spreadsheet's headers suggest (docs/dashboard.md#column-mapping): each lead
 * field to the column whose header is one of its {@link FIELD_SYNONYMS} (exactly, after
 * {@link normalizeHeader}), or else the closest fuzzy match (Fuse.js) within
 * {@link MATCH_THRESHOLD}. A column feeds at most one field; exact matches win over fuzzy
 * ones, better scores over worse. A field no header matches is left out; a header longer than
 * {@link MAX_MATCHED_HEADER_CHARS} matches nothing. Computed once per upload, in the thread
 * that reads the file, and stored.
 * @param headers the header row's cells, in column order.
 */
export function suggestMapping(headers: readonly string[]): ColumnMapping {
  const entries = LEAD_FIELDS.flatMap((field) =>
    FIELD_SYNONYMS[field].map((synonym) => ({ field, synonym })),
  );
  const fuse = new Fuse(entries, {
    keys: ['synonym'],
    includeScore: true,
    threshold: MATCH_THRESHOLD,
  });
  const candidates: Array<{ field: LeadField; column: number; score: number }> = [];
  headers.forEach((header, column) => {
    if (header.length > MAX_MATCHED_HEADER_CHARS * 4) return;
    const name = normalizeHeader(header);
    if (name === '' || name.length > MAX_MATCHED_HEADER_CHARS) return;
    for (const { item, score } of fuse.search(name)) {
      const exact = item.synonym === name;
      candidates.push({ field: item.field, column, score: exact ? -1 : (score ?? 1) });
    }
  });
  candidates.sort((a, b) => a.score - b.score || a.column - b.column);
  const mapping: ColumnMapping = {};
  const taken = new Set<number>();
  for (const { field, column } of candidates) {
    if (mapping[field] !== undefined || taken.has(column)) continue;
    mapping[field] = column;
    taken.add(column);
  }
  return mapping;
}

/**
 * A mapping as sent by a client, checked against the file: an object from lead fields to
 * distinct 0-based column indexes below `columnCount`; `phone` is required.
 * @throws InvalidInputError (field `mapping`) naming the first problem.
 */
export function checkMapping(value: unknown, columnCount: number): ColumnMapping {
  const bad = (problem: string) => InvalidInputError.field('mapping', problem);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bad('must be an object from lead fields to column indexes');
  }
  const mapping: ColumnMapping = {};
  const used = new Set<number>();
  for (const [field, column] of Object.entries(value)) {
    if (!(LEAD_FIELDS as readonly string[]).includes(field)) {
      throw bad(
        `names ${JSON.stringify(field.slice(0, 40))}, which is not a lead field (${LEAD_FIELDS.join(', ')})`,
      );
    }
    if (column === null) continue;
    if (!Number.isInteger(column) || (column as number) < 0 || (column as number) >= columnCount) {
      throw new InvalidInputError(
        `mapping.${field} must be a column index from 0 to ${columnCount - 1}`,
        `mapping.${field}`,
      );
    }
    if (used.has(column as number)) throw bad(`uses column ${column as number} for two fields`);
    used.add(column as number);
    mapping[field] = column as number;
  }
  if (mapping.phone === undefined) throw bad('must map a column to phone');
  return mapping;
}

/**
 * A row's cells as a lead object for the upload's validation: each mapped field its cell's
 * text, an empty cell left out (an absent optional field).
 */
export function leadOfRow(
  cells: readonly string[],
  mapping: ColumnMapping,
): Record<string, unknown> {
  const lead: Record<string, unknown> = {};
  for (const field of LEAD_FIELDS) {
    const column = mapping[field];
    if (column === undefined) continue;
    const cell = cells[column] ?? '';
    if (cell !== '') lead[field] = cell;
  }
  return lead;
}

/** The headers a "no phone column" refusal quotes at most, and how much of each. */
const QUOTED_HEADERS = 5;
const QUOTED_HEADER_CHARS = 40;

/**
 * Why a file has no phone column, in the words of the CSV importer's refusal
 * (docs/dashboard.md#spreadsheet-imports): its first few headers quoted, cut short.
 */
export function noPhoneColumn(headers: readonly string[]): string {
  const quoted = headers
    .slice(0, QUOTED_HEADERS)
    .map((header) =>
      JSON.stringify(
        header.length > QUOTED_HEADER_CHARS ? `${header.slice(0, QUOTED_HEADER_CHARS)}…` : header,
      ),
    )
    .join(', ');
  const more =
    headers.length > QUOTED_HEADERS ? ` (and ${headers.length - QUOTED_HEADERS} more)` : '';
  return (
    `has no phone column: none of ${quoted}${more} is a known phone header (Phone, Mobile, ` +
    'Phone Number, Cell, …) and no column holds a phone number in the first rows; name the ' +
    'column Phone and upload the file again'
  );
}
