/** Largest value of a PostgreSQL `integer` column: ids above it cannot exist. */
export const MAX_INT4 = 2_147_483_647;

/**
 * Reads a positive integer id from a JSON value (a number, never a numeric string).
 * @returns the id, or `null` when `value` is not a JSON integer ≥ 1.
 */
export function jsonPositiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : null;
}

/**
 * Reads a positive integer id from a path segment: decimal digits without sign or leading zero.
 * @returns the id, or `null` when `segment` is anything else.
 */
export function pathPositiveInt(segment: string | undefined): number | null {
  return segment !== undefined && /^[1-9][0-9]{0,15}$/.test(segment) ? Number(segment) : null;
}
