import { stringify } from 'csv-stringify/sync';
import type { LeadUploadError } from '..';
import { LEAD_FIELDS } from '..';

/** The longest submitted string kept with a rejected row, in characters. */
export const SUBMITTED_MAX_CHARS = 1_000;

/** A rejected row as stored and listed (docs/dashboard.md#imports). */
export interface ImportRejection {
  /** The lead's 0-based index in the upload's `leads`. */
  row: number;
  field: string;
  message: string;
  /** The lead's fields as submitted; strings cut to {@link SUBMITTED_MAX_CHARS}. */
  submitted: Record<string, unknown>;
}

/**
 * The fields of a submitted lead worth keeping with its rejection: the lead fields it has
 * (other keys are ignored on upload too). Strings are cut to {@link SUBMITTED_MAX_CHARS}
 * characters; an object or array is kept as its JSON text, cut likewise. A lead that is not
 * an object keeps nothing.
 */
export function submittedFields(lead: unknown): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (typeof lead !== 'object' || lead === null || Array.isArray(lead)) return kept;
  for (const field of LEAD_FIELDS) {
    if (!Object.hasOwn(lead, field)) continue;
    const value = (lead as Record<string, unknown>)[field];
    kept[field] =
      value === null || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : keptText(typeof value === 'string' ? value : JSON.stringify(value));
  }
  return kept;
}

/**
 * A submitted string as kept: cut to {@link SUBMITTED_MAX_CHARS} characters, with each NUL and
 * each lone surrogate (which a lead field may hold, and PostgreSQL's `jsonb` cannot) replaced
 * by U+FFFD.
 */
function keptText(value: string): string {
  return value.slice(0, SUBMITTED_MAX_CHARS).toWellFormed().replace(/\0/g, '\uFFFD');
}

/** The rejections of an upload: one per entry of its 202's `errors`, with what was submitted. */
export function rejectionsOf(
  errors: LeadUploadError[],
  leads: readonly unknown[],
): ImportRejection[] {
  return errors.map((error) => ({
    row: error.row,
    field: error.var_field,
    message: error.message,
    submitted: submittedFields(leads[error.row]),
  }));
}

/** First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell value safe to open in a spreadsheet: one starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return is prefixed with a single quote, so it is shown as text and never run as a
 * formula (OWASP "CSV Injection"). Other values are unchanged.
 */
export function neutralizeCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** The CSV columns of rejected rows: the row and error, then every lead field as submitted. */
export const REJECTION_CSV_COLUMNS = ['row', 'field', 'message', ...LEAD_FIELDS] as const;

/**
 * Rejected rows as CSV lines (RFC 4180, `\r\n`), every cell neutralized against formula
 * injection ({@link neutralizeCell}); a submitted value that is not a string is written as
 * JSON. With `header`, the first line names the {@link REJECTION_CSV_COLUMNS}.
 */
export function rejectionsCsv(rejections: ImportRejection[], header: boolean): string {
  const cell = (value: unknown) =>
    value === undefined || value === null
      ? ''
      : neutralizeCell(typeof value === 'string' ? value : JSON.stringify(value));
  return stringify(
    rejections.map((r) => [
      String(r.row),
      cell(r.field),
      cell(r.message),
      ...LEAD_FIELDS.map((field) => cell(r.submitted[field])),
    ]),
    { header, columns: header ? [...REJECTION_CSV_COLUMNS] : undefined, record_delimiter: '\r\n' },
  );
}
