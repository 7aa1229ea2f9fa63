import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/** Lets one worker at a time apply retention (an arbitrary constant). */
const RETENTION_LOCK_KEY = 727_401_003;

/**
 * The retention pass's locked session (docs/operations.md#retention). The rows it deletes are
 * the participants' (`RetentionStep`s, each in its table's module); the attempts' partitions are
 * `AttemptPartitionsRepository`'s.
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
}
