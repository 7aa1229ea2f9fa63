import type { components } from '../generated/schema';

/** A lead field a CSV column can fill: the API's `var_field` names (openapi.json). */
export type LeadField = components['schemas']['LeadUploadError']['var_field'];
/** Every {@link LeadField}, in the order the API validates them. */
export const LEAD_FIELDS: readonly LeadField[] = [
  'phone',
  'email',
  'first_name',
  'last_name',
  'company',
  'title',
];

/** Header names recognised without a `--map` flag, compared after {@link normalizeHeader}. */
const ALIASES: Record<LeadField, string[]> = {
  phone: [
    'phone',
    'phone number',
    'mobile',
    'mobile phone',
    'mobile number',
    'cell',
    'cell phone',
    'telephone',
  ],
  email: ['email', 'e-mail', 'email address', 'e-mail address'],
  first_name: ['first name', 'firstname', 'given name', 'forename'],
  last_name: ['last name', 'lastname', 'surname', 'family name'],
  company: ['company', 'company name', 'organization', 'organisation'],
  title: ['title', 'job title', 'position'],
};

/** `First Name`, `first_name` and `FIRST-NAME` all read `firstname`. */
export function normalizeHeader(header: string): string {
  return header.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** Which column (0-based) fills each field; fields without a column are absent. */
export type ColumnMap = Partial<Record<LeadField, number>>;

/** What {@link mapHeaders} decided, for the importer to report. */
export interface HeaderMapping {
  columns: ColumnMap;
  /** Headers no field uses (left out of the upload, kept in the rejected-rows file). */
  ignored: string[];
}

/**
 * Maps the CSV's header row to lead fields: first the `overrides` (`--map phone=Tel`: the
 * header `Tel`, exactly or after {@link normalizeHeader}), then the common names of each field
 * (`Phone`, `Mobile`, `E-mail`, `Given name`, `Job Title`, …). When two headers fit one field,
 * the first column wins and the other is ignored.
 *
 * @throws Error when an override names no header, or no column gives the phone.
 */
export function mapHeaders(
  headers: string[],
  overrides: Partial<Record<LeadField, string>> = {},
): HeaderMapping {
  const columns: ColumnMap = {};
  const used = new Set<number>();
  for (const [field, name] of Object.entries(overrides) as [LeadField, string][]) {
    let index = headers.indexOf(name);
    if (index === -1)
      index = headers.findIndex((h) => normalizeHeader(h) === normalizeHeader(name));
    if (index === -1) {
      throw new Error(
        `--map ${field}=${name}: the file has no column "${name}" (columns: ${headers.join(', ')})`,
      );
    }
    columns[field] = index;
    used.add(index);
  }
  for (const field of LEAD_FIELDS) {
    if (columns[field] !== undefined) continue;
    const names = new Set([normalizeHeader(field), ...ALIASES[field].map(normalizeHeader)]);
    const index = headers.findIndex((h, i) => !used.has(i) && names.has(normalizeHeader(h)));
    if (index !== -1) {
      columns[field] = index;
      used.add(index);
    }
  }
  if (columns.phone === undefined) {
    throw new Error(
      `no phone column: none of ${headers.map((h) => `"${h}"`).join(', ')} is a known phone ` +
        'header (Phone, Mobile, Phone Number, Cell, …); name it with --map phone=<header>',
    );
  }
  return { columns, ignored: headers.filter((_h, i) => !used.has(i)) };
}

/**
 * Parses `--map field=Header` flags.
 *
 * @throws Error on a flag without `=` or an unknown field.
 */
export function parseMapFlags(flags: string[]): Partial<Record<LeadField, string>> {
  const overrides: Partial<Record<LeadField, string>> = {};
  for (const flag of flags) {
    const at = flag.indexOf('=');
    const field = flag.slice(0, at).trim() as LeadField;
    if (at === -1 || !LEAD_FIELDS.includes(field) || flag.slice(at + 1) === '') {
      throw new Error(
        `--map ${flag}: expected field=Header with field one of ${LEAD_FIELDS.join(', ')}`,
      );
    }
    overrides[field] = flag.slice(at + 1);
  }
  return overrides;
}
