import type { NormalizedLead } from './lead-validator';

/** The lead columns the insert takes as `text[]` parameters, in the statement's order. */
export const LEAD_COLUMNS = [
  'phone',
  'first_name',
  'last_name',
  'email',
  'company',
  'title',
] as const satisfies ReadonlyArray<keyof NormalizedLead>;

const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

/** One element of a `text[]` literal: quoted, with `\` and `"` escaped by a backslash. */
function element(value: string | null): string {
  if (value === null) return 'NULL';
  return NEEDS_ESCAPE.test(value) ? `"${value.replace(ESCAPED, '\\$&')}"` : `"${value}"`;
}

/**
 * The PostgreSQL `text[]` literals of the leads' {@link LEAD_COLUMNS}, built in one pass over
 * the leads: exactly the text node-postgres sends for an array of strings and nulls (every
 * element quoted, `\` and `"` escaped, null as `NULL`), without its per-element type checks and
 * two regex replacements (about 13 ms of CPU for 10,000 leads).
 *
 * @param leads the leads in insert order.
 * @returns one literal per column, e.g. `{"+12123744203",NULL}`.
 */
export function leadColumnLiterals(leads: readonly NormalizedLead[]): string[] {
  const literals: string[] = LEAD_COLUMNS.map(() => '{');
  for (let i = 0; i < leads.length; i++) {
    const lead = leads[i];
    const separator = i === 0 ? '' : ',';
    for (let c = 0; c < LEAD_COLUMNS.length; c++) {
      literals[c] += separator + element(lead[LEAD_COLUMNS[c]]);
    }
  }
  return literals.map((literal) => `${literal}}`);
}
