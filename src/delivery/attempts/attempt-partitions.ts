/**
 * The attempts' daily partitions in plain values (docs/operations.md#retention): their table,
 * names and days. The SQL is `AttemptPartitionsRepository`'s; the start-up check is
 * `AttemptPartitions`'.
 */
/** The partitioned table of delivery attempts (docs/operations.md#retention). */
export const ATTEMPT_TABLE = 'webhook_delivery_attempt';
/** Days of partitions kept ready after today. */
export const PARTITION_DAYS_AHEAD = 14;
export const DAY_MS = 86_400_000;

/** Midnight UTC of the day holding `ms` (ms since the epoch). */
export function utcDay(ms: number): Date {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS);
}

/** The name of the partition of the UTC day starting at `day`: `webhook_delivery_attempt_p20261125`. */
export function partitionName(day: Date): string {
  return `${ATTEMPT_TABLE}_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/** One partition of the attempts: its name and range [from, to); `from` null is MINVALUE. */
export interface AttemptPartition {
  name: string;
  from: Date | null;
  to: Date;
}

/**
 * The days in [`first`, `last`] (each a UTC midnight) that no partition covers yet, in order.
 */
export function missingDays(partitions: AttemptPartition[], first: Date, last: Date): Date[] {
  const missing: Date[] = [];
  for (let day = first.getTime(); day <= last.getTime(); day += DAY_MS) {
    const covered = partitions.some(
      (p) => (p.from === null || p.from.getTime() <= day) && day < p.to.getTime(),
    );
    if (!covered) missing.push(new Date(day));
  }
  return missing;
}
