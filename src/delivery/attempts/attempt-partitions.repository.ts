import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import {
  ATTEMPT_TABLE,
  DAY_MS,
  missingDays,
  partitionName,
  type AttemptPartition,
} from './attempt-partitions';

/** Serialises partition changes across processes (an arbitrary constant). */
const PARTITION_LOCK_KEY = 727_401_002;

/** Anything that runs a query: a data source, an entity manager or a query runner. */
type Queryable = Pick<EntityManager, 'query'>;

/** A partition as the catalogue has it: {@link AttemptPartition}, and whether it is being detached. */
export type ListedAttemptPartition = AttemptPartition & { detaching: boolean };

/**
 * The attempts' partitions as PostgreSQL has them, oldest first, with those being detached.
 * Bounds are read from the catalogue (`pg_get_expr` of the partition bound) and cast back to
 * timestamps in SQL, so the session's time zone does not matter.
 * @param db the connection to read on: a data source, or a session's or transaction's manager.
 */
export async function listAttemptPartitions(db: Queryable): Promise<ListedAttemptPartition[]> {
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
 * Makes the attempts' partition of each UTC day from `first` to `last` (UTC midnights) that
 * does not exist yet. Each is created empty and then attached, which locks the attempts' table
 * only in SHARE UPDATE EXCLUSIVE mode (writes go on); attaching copies the table's indexes and
 * foreign keys. Processes doing this at once are serialised by an advisory lock, held for the
 * transaction (with a 10 s `lock_timeout`).
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
 * The DDL of the attempts' daily partitions (docs/operations.md#retention): list, make, and
 * detach and drop. Methods taking an `EntityManager` run on the caller's session.
 */
@Injectable()
export class AttemptPartitionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** {@link listAttemptPartitions} on `session`. */
  list(session: EntityManager): Promise<ListedAttemptPartition[]> {
    return listAttemptPartitions(session);
  }

  /** {@link ensureAttemptPartitions} on the pool: the days from `first` to `last`. */
  ensure(first: Date, last: Date): Promise<string[]> {
    return ensureAttemptPartitions(this.dataSource, first, last);
  }

  /**
   * Detaches partition `name` from the attempts' table and drops it: `CONCURRENTLY`, which
   * waits for queries already using it instead of blocking new ones, or `FINALIZE` for a
   * detach a stopped process left pending (`detaching`).
   * @param session a session outside any transaction (`DETACH … CONCURRENTLY` refuses one).
   */
  async detachAndDrop(
    session: EntityManager,
    { name, detaching }: Pick<ListedAttemptPartition, 'name' | 'detaching'>,
  ): Promise<void> {
    await session.query(
      `ALTER TABLE "${ATTEMPT_TABLE}" DETACH PARTITION "${name}" ${
        detaching ? 'FINALIZE' : 'CONCURRENTLY'
      }`,
    );
    await session.query(`DROP TABLE "${name}"`);
  }
}
