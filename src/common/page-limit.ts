import { InvalidInputError } from './domain-error';

/**
 * A page size from a query parameter: decimal digits from 1 to `max`.
 * @throws InvalidInputError (field `limit`) otherwise.
 */
export function parsePageLimit(value: string, max: number): number {
  const limit = /^[0-9]{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= max)) {
    throw InvalidInputError.field('limit', `must be an integer from 1 to ${max}`);
  }
  return limit;
}
