import type { ValueTransformer } from 'typeorm';

/**
 * Reads PostgreSQL `bigint` columns (which `pg` returns as strings) as JavaScript numbers.
 * Ids stay far below 2^53, so no precision is lost.
 */
export const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
