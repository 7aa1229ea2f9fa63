import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { QueuedDelivery } from '../deliveries';
import type { RecoveryScope, RecoveryStatus } from './delivery-recovery.entity';

/**
 * A bulk recovery, or a replay of missed deliveries, as the dashboard shows it
 * (docs/webhooks.md#bulk-recovery, docs/webhooks.md#replaying-missed-deliveries).
 */
export interface RecoveryRecord {
  id: number;
  endpoint_id: number;
  /** `failed` (and waiting on a retry), or `missed` (those, skipped and dropped). */
  scope: RecoveryScope;
  since: Date;
  status: RecoveryStatus;
  /** Deliveries of its scope counted at the start. */
  total: number;
  /** Deliveries moved back to `pending` (or, waiting on a retry, made due now) so far. */
  processed: number;
  created_at: Date;
  finished_at: Date | null;
}

/** A running recovery taken by a worker for its next batch. */
export interface ClaimedRecovery {
  id: number;
  endpointId: number;
  scope: RecoveryScope;
  since: Date;
  cursorDeliveryId: number;
}

/** How many of an endpoint's deliveries since a time a recovery would send again, by status. */
export interface MissedCounts {
  /** `failed`: their retry schedule ran out. */
  failed: number;
  /** `pending` with at least one failed attempt: waiting on their next retry. */
  retrying: number;
  /** `skipped` (recorded while it was disabled) or `dropped` (disabled before their attempt). */
  skipped: number;
}

/** A delivery a batch moved: queued again (was not pending), or made due now (`retrying`). */
export interface MovedDelivery extends QueuedDelivery {
  /** It was pending, waiting on a retry: its job is woken, not queued again. */
  retrying: boolean;
  /** An attempt of it was under way when it was moved. */
  inFlight: boolean;
}

const RECORD_COLUMNS =
  'id, endpoint_id, scope, since, status, total, processed, created_at, finished_at';

/**
 * Pending deliveries waiting on a retry: at least one attempt, and none succeeded (a success
 * ends a delivery). Written as the predicate of `idx_webhook_delivery_retrying_id`.
 */
const RETRYING = `status = 'pending' AND attempt_count > 0`;

/**
 * What each scope covers, as SQL predicates each written as a partial index's
 * (`idx_webhook_delivery_failed_*`, `idx_webhook_delivery_missed_*`,
 * `idx_webhook_delivery_retrying_id`), so that PostgreSQL reads each from its index: both
 * scopes cover the deliveries waiting on a retry too.
 */
const SCOPE_BRANCHES: Record<RecoveryScope, readonly string[]> = {
  failed: [`status = 'failed'`, RETRYING],
  missed: [`status IN ('failed', 'skipped', 'dropped')`, RETRYING],
  // Failed on the endpoint's transformation (docs/webhooks.md#transformations): never retrying.
  transformation_errors: [`status = 'failed' AND status_reason = 'transformation_error'`],
};

/**
 * SQL for the id and status of endpoint `$1`'s deliveries of `scope` that meet `condition`: one
 * `SELECT` per branch of the scope, `UNION ALL` (no delivery is in two branches).
 */
function coveredDeliveries(scope: RecoveryScope, condition: string): string {
  return SCOPE_BRANCHES[scope]
    .map(
      (branch) =>
        `(SELECT id, status FROM webhook_delivery
           WHERE endpoint_id = $1 AND ${branch} AND ${condition})`,
    )
    .join(' UNION ALL ');
}

/** SQL: the row (of the table or alias named) is of `scope`. */
function ofScope(scope: RecoveryScope): string {
  return `(${SCOPE_BRANCHES[scope].map((branch) => `(${branch})`).join(' OR ')})`;
}

/**
 * Every query on `delivery_recovery` and `delivery_recovery_delivery`, and the recovery's moves of `webhook_delivery` rows
 * (docs/webhooks.md#bulk-recovery). Counting and walking failed deliveries use the partial
 * indexes `idx_webhook_delivery_failed_created` (endpoint, created_at) and
 * `idx_webhook_delivery_failed_id` (endpoint, id), both `WHERE status = 'failed'`; missed ones
 * (failed, skipped, dropped) the `idx_webhook_delivery_missed_*` pair; those waiting on a retry
 * `idx_webhook_delivery_retrying_id` (endpoint, id).
 */
@Injectable()
export class DeliveryRecoveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Of the endpoint's deliveries created at or after `since`, how many failed, wait on a retry,
   * or were skipped or dropped.
   */
  async countMissedSince(endpointId: number, since: Date): Promise<MissedCounts> {
    const [row]: MissedCounts[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*) FILTER (WHERE status = 'pending')::int AS retrying,
              count(*) FILTER (WHERE status IN ('skipped', 'dropped'))::int AS skipped
         FROM (${coveredDeliveries('missed', 'created_at >= $2')}) AS covered`,
      [endpointId, since],
    );
    return row;
  }

  /** The endpoint's running recovery, or null. */
  async findRunning(endpointId: number): Promise<RecoveryRecord | null> {
    const rows: RecoveryRecord[] = await this.dataSource.query(
      `SELECT ${RECORD_COLUMNS} FROM delivery_recovery WHERE endpoint_id = $1 AND status = 'running'`,
      [endpointId],
    );
    return rows[0] ?? null;
  }

  /**
   * Starts a recovery of the endpoint's deliveries of `scope` created at or after `since`,
   * counting them and fixing them as its deliveries (`delivery_recovery_delivery`), in one
   * statement: a delivery that comes into the scope later never joins it. With nothing to
   * redeliver the recovery is `done` at once.
   * In the caller's transaction when `manager` is given.
   * @returns null when the endpoint already has a running recovery (the unique partial index
   *   `uq_delivery_recovery_running` refused a second one).
   */
  async insert(
    endpointId: number,
    since: Date,
    scope: RecoveryScope,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RecoveryRecord | null> {
    const rows: RecoveryRecord[] = await manager.query(
      `WITH covered AS MATERIALIZED (${coveredDeliveries(scope, 'created_at >= $2')}),
            started AS (
              INSERT INTO delivery_recovery
                     (endpoint_id, scope, since, status, total, last_delivery_id,
                      cursor_delivery_id, finished_at)
              SELECT $1, $3, $2, CASE WHEN count(*) = 0 THEN 'done' ELSE 'running' END, count(*),
                     coalesce(max(id), 0), coalesce(min(id) - 1, 0),
                     CASE WHEN count(*) = 0 THEN now() END
                FROM covered
              ON CONFLICT (endpoint_id) WHERE status = 'running' DO NOTHING
              RETURNING ${RECORD_COLUMNS}),
            fixed AS (
              INSERT INTO delivery_recovery_delivery (recovery_id, delivery_id)
              SELECT started.id, covered.id FROM started CROSS JOIN covered
               WHERE started.status = 'running')
       SELECT * FROM started`,
      [endpointId, since, scope],
    );
    return rows[0] ?? null;
  }

  /** Recovery `id`, or null. */
  async find(id: number): Promise<RecoveryRecord | null> {
    const rows: RecoveryRecord[] = await this.dataSource.query(
      `SELECT ${RECORD_COLUMNS} FROM delivery_recovery WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The endpoint's last `limit` recoveries, newest first. */
  async listOfEndpoint(endpointId: number, limit: number): Promise<RecoveryRecord[]> {
    return this.dataSource.query(
      `SELECT ${RECORD_COLUMNS} FROM delivery_recovery WHERE endpoint_id = $1
        ORDER BY id DESC LIMIT $2`,
      [endpointId, limit],
    );
  }

  /**
   * Ends recovery `id` as `status` if it is running (waits for a batch under way to commit),
   * and removes its list of deliveries.
   * @returns the recovery as ended, or null when it was not running.
   */
  async finish(
    id: number,
    status: Exclude<RecoveryStatus, 'running'>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RecoveryRecord | null> {
    const rows: RecoveryRecord[] = await manager.query(
      `WITH ended AS (
              UPDATE delivery_recovery
                 SET status = $2, finished_at = now(), batch_delivery_ids = '{}'
               WHERE id = $1 AND status = 'running'
           RETURNING ${RECORD_COLUMNS}),
            removed AS (
              DELETE FROM delivery_recovery_delivery
               WHERE recovery_id IN (SELECT id FROM ended))
       SELECT * FROM ended`,
      [id, status],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks the first running recovery whose last batch has been attempted (or was queued more
   * than `staleMs` ago), skipping those another worker holds. A delivery of the batch is
   * attempted once it has left `pending`, or, still pending, once its next attempt was put
   * after the batch was queued (its attempt failed and its retry is scheduled).
   */
  async claimNext(manager: EntityManager, staleMs: number): Promise<ClaimedRecovery | null> {
    const rows: Array<{
      id: number;
      endpoint_id: number;
      scope: RecoveryScope;
      since: Date;
      cursor_delivery_id: string;
    }> = await manager.query(
      `SELECT r.id, r.endpoint_id, r.scope, r.since, r.cursor_delivery_id
         FROM delivery_recovery r
        WHERE r.status = 'running'
          AND (r.batch_queued_at IS NULL
               OR r.batch_queued_at < now() - make_interval(secs => $1::double precision / 1000)
               OR NOT EXISTS (SELECT 1 FROM webhook_delivery d
                               WHERE d.id = ANY(r.batch_delivery_ids) AND d.status = 'pending'
                                 AND d.next_attempt_at <= r.batch_queued_at))
        ORDER BY r.id
        LIMIT 1
          FOR UPDATE OF r SKIP LOCKED`,
      [staleMs],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      endpointId: row.endpoint_id,
      scope: row.scope,
      since: row.since,
      cursorDeliveryId: Number(row.cursor_delivery_id),
    };
  }

  /**
   * Locks the recovery's next batch: the next `limit` of its deliveries (fixed when it started)
   * after its cursor, in id order, and of those the ones still of its scope, `FOR UPDATE` and
   * read again once locked, like every change of a delivery's state (an attempt's result waits
   * for the commit, or is waited for). A delivery that left the scope meanwhile (its own retry
   * succeeded, it was redelivered on its own) is passed over, not sent. The caller moves the
   * locked ones back to `pending` through the deliveries' owner (`Deliveries.moveBackToPending`)
   * and then {@link advance}s the recovery past `through`, in the same transaction.
   * @returns the locked deliveries with their status before the move, and the highest id of the
   *   batch (`through`), or null when none of its deliveries is left: it is done.
   */
  async lockBatch(
    manager: EntityManager,
    recovery: ClaimedRecovery,
    limit: number,
  ): Promise<{ locked: Array<{ id: number; status: string }>; through: number } | null> {
    const batch: Array<{ delivery_id: string }> = await manager.query(
      `SELECT delivery_id FROM delivery_recovery_delivery
        WHERE recovery_id = $1 AND delivery_id > $2
        ORDER BY delivery_id LIMIT $3`,
      [recovery.id, recovery.cursorDeliveryId, limit],
    );
    if (batch.length === 0) return null;
    const ids = batch.map((row) => row.delivery_id);
    const rows: Array<{ id: string; status: string }> = await manager.query(
      `SELECT w.id, w.status FROM webhook_delivery w
        WHERE w.id = ANY($1::bigint[]) AND w.endpoint_id = $2 AND ${ofScope(recovery.scope)}
        ORDER BY w.id
          FOR UPDATE`,
      [ids, recovery.endpointId],
    );
    return {
      locked: rows.map((row) => ({ id: Number(row.id), status: row.status })),
      through: Number(ids[ids.length - 1]),
    };
  }

  /**
   * Of `deliveries`, those still pending and due, with no attempt under way: a recovered
   * delivery whose job was busy when it was woken, looked at once more.
   */
  async dueWithoutAttempt(deliveries: QueuedDelivery[]): Promise<QueuedDelivery[]> {
    if (deliveries.length === 0) return [];
    const rows: Array<{ id: string; endpoint_id: number }> = await this.dataSource.query(
      `SELECT d.id, d.endpoint_id FROM webhook_delivery d
        WHERE d.id = ANY($1::bigint[]) AND d.status = 'pending' AND d.next_attempt_at <= now()
          AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempt a
                           WHERE a.delivery_id = d.id AND a.finished_at IS NULL)
        ORDER BY d.id`,
      [deliveries.map((d) => d.id)],
    );
    return rows.map((row) => ({ id: Number(row.id), endpointId: row.endpoint_id }));
  }

  /**
   * Moves the recovery's cursor to `through` (the last of its batch), counts the deliveries
   * `moved` (in id order; empty when all of the batch had left its scope) and notes them as its
   * last batch, in the caller's transaction.
   */
  async advance(
    manager: EntityManager,
    recoveryId: number,
    through: number,
    moved: QueuedDelivery[],
  ): Promise<void> {
    await manager.query(
      `UPDATE delivery_recovery
          SET processed = processed + $2, cursor_delivery_id = $3,
              batch_delivery_ids = $4::bigint[], batch_queued_at = now()
        WHERE id = $1`,
      [recoveryId, moved.length, through, moved.map((m) => m.id)],
    );
  }
}
