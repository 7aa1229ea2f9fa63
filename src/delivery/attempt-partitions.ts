import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/** The partitioned table of delivery attempts (docs/operations.md#retention). */
export const ATTEMPT_TABLE = 'webhook_delivery_attempt';
/** Days of partitions kept ready after today. */
export const PARTITION_DAYS_AHEAD = 14;
export const DAY_MS = 86_400_000;
/** Serialises partition changes across processes (an arbitrary constant). */
const PARTITION_LOCK_KEY = 727_401_002;

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

/** Anything that runs a query: a data source, an entity manager or a query runner. */
type Queryable = Pick<EntityManager, 'query'>;

/**
 * The attempts' partitions as PostgreSQL has them, oldest first, with those being detached.
 * Bounds are read from the catalogue (`pg_get_expr` of the partition bound) and cast back to
 * timestamps in SQL, so the session's time zone does not matter.
 */
export async function listAttemptPartitions(
  db: Queryable,
): Promise<Array<AttemptPartition & { detaching: boolean }>> {
  const rows: Array<{ name: string; from: Date | null; to: Date; detaching: boolean }> =
    await db.query(
      `SELECT c.relname AS name,
              NULLIF(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([^'']+)''\\)'), '')::timestamptz AS "from",
              substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([^'']+)''\\)')::timestamptz AS "to",
              i.inhdetachpending AS detaching
         FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = $1::regclass
        ORDER BY 3`,
      [ATTEMPT_TABLE],
    );
  return rows;
}

/**
 * Makes the attempts' partition of each UTC day from `first` to `last` that does not exist
 * yet. Each is created empty and then attached, which locks the attempts' table only in SHARE
 * UPDATE EXCLUSIVE mode (writes go on); attaching copies the table's indexes and foreign keys.
 * Processes doing this at once are serialised by an advisory lock.
 * @returns the names of the partitions made.
 * @throws database errors (the caller logs them; the next call tries again).
 */
export async function ensureAttemptPartitions(
  dataSource: DataSource,
  first: Date,
  last: Date,
): Promise<string[]> {
  // Most calls find every day there: one catalogue read, no lock.
  if (missingDays(await listAttemptPartitions(dataSource), first, last).length === 0) return [];
  return dataSource.transaction(async (manager) => {
    await manager.query(`SET LOCAL lock_timeout = '10s'`);
    await manager.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK_KEY]);
    const made: string[] = [];
    for (const day of missingDays(await listAttemptPartitions(manager), first, last)) {
      const name = partitionName(day);
      const to = new Date(day.getTime() + DAY_MS);
      await manager.query(
        `CREATE TABLE "${name}" (LIKE "${ATTEMPT_TABLE}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`,
      );
      await manager.query(
        `ALTER TABLE "${ATTEMPT_TABLE}" ATTACH PARTITION "${name}"
           FOR VALUES FROM ('${day.toISOString()}') TO ('${to.toISOString()}')`,
      );
      made.push(name);
    }
    return made;
  });
}

/**
 * Keeps the attempts' partitions ready when any process starts, API or worker: today and the
 * {@link PARTITION_DAYS_AHEAD} days after it (docs/operations.md#retention). The worker's
 * retention pass keeps them ahead afterwards. Never throws: a failure is logged, and an
 * attempt finds its partition as long as one of the last two weeks' passes succeeded.
 */
@Injectable()
export class AttemptPartitions implements OnApplicationBootstrap {
  private readonly logger = new Logger(AttemptPartitions.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureAhead();
  }

  /**
   * Makes the missing partitions from today to {@link PARTITION_DAYS_AHEAD} days ahead.
   * @returns the names of the partitions made (none when the call failed).
   */
  async ensureAhead(now = Date.now()): Promise<string[]> {
    const today = utcDay(now);
    try {
      const made = await ensureAttemptPartitions(
        this.dataSource,
        today,
        new Date(today.getTime() + PARTITION_DAYS_AHEAD * DAY_MS),
      );
      if (made.length > 0) this.logger.log(`Made attempt partitions ${made.join(', ')}`);
      return made;
    } catch (error) {
      this.logger.error(`Could not make attempt partitions: ${(error as Error).message}`);
      return [];
    }
  }
}
