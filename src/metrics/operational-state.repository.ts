import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

/**
 * The state look-up of each scrape (cached {@link STATE_CACHE_MS}). Every part reads an index,
 * never a whole large table: the pending deliveries through the partial index
 * `idx_webhook_delivery_pending` (`status = 'pending'`, ordered by `next_attempt_at`: the
 * oldest due one is its first entry, read alone; the counts read the index's entries, so they
 * cost in proportion to the backlog, not to the table), the running imports and recoveries through
 * `idx_spreadsheet_import_running` and `uq_delivery_recovery_running`. The endpoints' table
 * has a row per endpoint (small) and is counted as is.
 */
export const STATE_QUERY = `
  SELECT (SELECT count(*) FROM webhook_delivery WHERE status = 'pending')::bigint AS pending,
         (SELECT count(*) FROM webhook_delivery
           WHERE status = 'pending' AND next_attempt_at <= now())::bigint AS due,
         (SELECT EXTRACT(EPOCH FROM now() - next_attempt_at) FROM webhook_delivery
           WHERE status = 'pending' AND next_attempt_at <= now()
           ORDER BY next_attempt_at LIMIT 1)::float8 AS oldest_due_age_seconds,
         (SELECT count(*) FROM webhook_endpoint WHERE failing_since IS NOT NULL)::int AS failing,
         (SELECT count(*) FROM webhook_endpoint WHERE NOT is_enabled)::int AS disabled,
         (SELECT count(*) FROM spreadsheet_import WHERE status = 'running')::int AS imports_running,
         (SELECT count(*) FROM delivery_recovery WHERE status = 'running')::int AS recoveries_running`;

/** The partitions of the attempts' table and their size on disk, indexes and TOAST included. */
export const PARTITIONS_QUERY = `
  SELECT count(*)::int AS partitions,
         COALESCE(sum(pg_total_relation_size(i.inhrelid)), 0)::float8 AS bytes
    FROM pg_inherits i
   WHERE i.inhparent = 'webhook_delivery_attempt'::regclass`;

export interface StateRow {
  pending: string;
  due: string;
  oldest_due_age_seconds: number | null;
  failing: number;
  disabled: number;
  imports_running: number;
  recoveries_running: number;
}

/**
 * The read-only SQL of the scrape-time gauges (docs/operations.md#metrics). It reads the
 * outbox, endpoints, imports, recoveries and the attempts' partitions, tables other modules
 * own, only to count them, through their indexes; it writes nothing.
 */
@Injectable()
export class OperationalStateRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One row of the deployment's state ({@link STATE_QUERY}). */
  async readState(): Promise<StateRow> {
    const [row]: StateRow[] = await this.dataSource.query(STATE_QUERY);
    return row;
  }

  /** This process's PostgreSQL pool under TypeORM's driver, for its usage gauges; absent before it connects. */
  pool(): Pool | undefined {
    return (this.dataSource.driver as unknown as { master?: Pool }).master;
  }

  /** The attempts' partitions and their total size in bytes ({@link PARTITIONS_QUERY}). */
  async readPartitions(): Promise<{ partitions: number; bytes: number }> {
    const [row]: Array<{ partitions: number; bytes: number }> =
      await this.dataSource.query(PARTITIONS_QUERY);
    return row;
  }
}
