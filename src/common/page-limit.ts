import { InvalidInputError } from './domain-error';

/** The page sizes of one keyset-paged list: what it reads when `limit` is not given, and the most. */
export interface PageLimits {
  /** The page size when the caller names none. */
  fallback: number;
  /** The largest page size, at most 9,999 (a query parameter has at most 4 digits). */
  max: number;
}

/**
 * The page size of a list's `limit` parameter (docs/dashboard.md#requests-and-answers):
 * `limits.fallback` when it is not given (`undefined` or `null`); else an integer from 1 to
 * `limits.max`, either a number or, as a query parameter arrives, 1 to 4 decimal digits
 * (`050` is 50; no sign, point or exponent).
 * @throws InvalidInputError (field `limit`, `must be an integer from 1 to <max>`) otherwise.
 */
export function parsePageLimit(
  value: string | number | null | undefined,
  limits: PageLimits,
): number {
  if (value === undefined || value === null) return limits.fallback;
  const limit =
    typeof value === 'number' ? value : /^[0-9]{1,4}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > limits.max) {
    throw InvalidInputError.field('limit', `must be an integer from 1 to ${limits.max}`);
  }
  return limit;
}
