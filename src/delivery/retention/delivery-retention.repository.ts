import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/** Lets one worker at a time apply retention (an arbitrary constant). */
const RETENTION_LOCK_KEY = 727_401_003;

/**
 * The retention pass's session and its deletes of delivery rows (docs/operations.md#retention).
 * Each delete removes one batch of at most `limit` rows; `DeliveryRetention` repeats and paces
 * them. The attempts' partitions are `AttemptPartitionsRepository`'s.
 */
@Injectable()
export class DeliveryRetentionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` on a connection of its own, outside any transaction (as `DETACH …
   * CONCURRENTLY` needs), holding the retention advisory lock for the session; the lock is
   * released and the connection returned to the pool afterwards, whatever happened.
   * @returns what `work` returned, or null when another session holds the lock (work not run).
   * @throws what connecting, locking or `work` threw.
   */
  async whileLocked<T>(work: (session: EntityManager) => Promise<T>): Promise<T | null> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      const [{ locked }]: Array<{ locked: boolean }> = await runner.query(
        'SELECT pg_try_advisory_lock($1) AS locked',
        [RETENTION_LOCK_KEY],
      );
      if (!locked) return null;
      try {
        return await work(runner.manager);
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * Deletes at most `limit` events recorded before `cutoff`, oldest first; each takes its
   * deliveries along (`ON DELETE CASCADE`).
   * @returns how many events it deleted.
   */
  async deleteEventsBefore(session: EntityManager, cutoff: Date, limit: number): Promise<number> {
    const [, count]: [unknown, number] = await session.query(
      `DELETE FROM webhook_event WHERE id IN (
         SELECT id FROM webhook_event WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
      [cutoff, limit],
    );
    return count;
  }

  /**
   * Deletes at most `limit` rollup rows of `periods` whose bucket started more than `keep`
   * before `now`.
   * @param keep a PostgreSQL interval, such as `'7 days'`.
   * @returns how many rows it deleted.
   */
  async deleteRollupsOlderThan(
    session: EntityManager,
    now: Date,
    periods: readonly string[],
    keep: string,
    limit: number,
  ): Promise<number> {
    const [, count]: [unknown, number] = await session.query(
      `DELETE FROM endpoint_delivery_rollup WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM endpoint_delivery_rollup
          WHERE period = ANY($3::text[]) AND bucket_start < $1::timestamptz - $4::interval
          LIMIT $2))`,
      [now, limit, periods, keep],
    );
    return count;
  }
}
