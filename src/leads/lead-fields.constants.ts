/**
 * The per-lead fields, in the order they are checked (docs/api.md#per-lead-validation). A
 * module of its own, free of the phone metadata `lead-validator.ts` loads, so that a
 * spreadsheet parse thread can name the fields without paying for that metadata.
 */
export const LEAD_FIELDS = [
  'phone',
  'email',
  'first_name',
  'last_name',
  'company',
  'title',
] as const;

/** The name of a per-lead field, as `var_field` reports it. */
export type LeadField = (typeof LEAD_FIELDS)[number];
