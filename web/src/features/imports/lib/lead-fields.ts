/**
 * The lead fields a spreadsheet column can fill, in the mapping form's order, with the labels
 * every import page shows them under (docs/dashboard.md#spreadsheet-imports).
 */
export const LEAD_FIELD_LABELS = [
  ['phone', 'Phone'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['email', 'Email'],
  ['company', 'Company'],
  ['title', 'Job title'],
] as const;

/** A lead field's name as the API sends it (`first_name`). */
export type LeadField = (typeof LEAD_FIELD_LABELS)[number][0];

/** A lead field's label (`First name`); the name itself for a field this page does not know. */
export function leadFieldLabel(field: string): string {
  return LEAD_FIELD_LABELS.find(([name]) => name === field)?.[1] ?? field;
}
