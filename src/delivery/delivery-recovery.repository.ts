import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { QueuedDelivery } from './delivery-queue';
import type { RecoveryScope, RecoveryStatus } from './delivery-recovery.entity';

/**
 * A bulk recovery, or a replay of missed deliveries, as the dashboard shows it
 * (docs/webhooks.md#bulk-recovery, docs/webhooks.md#replaying-missed-deliveries).
 */
export interface RecoveryRecord {
  id: number;
  endpoint_id: number;
  /** `failed`, or `missed` (failed, skipped and dropped). */
  scope: RecoveryScope;
  since: Date;
  status: RecoveryStatus;
  /** Deliveries of its scope counted at the start. */
  total: number;
  /** Deliveries moved back to `pending` so far. */
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
  lastDeliveryId: number;
  cursorDeliveryId: number;
}

/** How many of an endpoint's deliveries since a time a replay would send again, by status. */
export interface MissedCounts {
  /** `failed`: their retry schedule ran out. */
  failed: number;
  /** `skipped` (recorded while it was disabled) or `dropped` (disabled before their attempt). */
  skipped: number;
}

const RECORD_COLUMNS =
  'id, endpoint_id, scope, since, status, total, processed, created_at, finished_at';

/**
 * The statuses of each scope as SQL, written as the partial indexes' predicates
 * (`idx_webhook_delivery_failed_*`, `idx_webhook_delivery_missed_*`) so that PostgreSQL uses them.
 */
const SCOPE_STATUSES: Record<RecoveryScope, string> = {
  failed: `status = 'failed'`,
  missed: `status IN ('failed', 'skipped', 'dropped')`,
};

/**
 * Every query on `delivery_recovery`, and the recovery's moves of `webhook_delivery` rows
 * (docs/webhooks.md#bulk-recovery). Counting and walking failed deliveries use the partial
 * indexes `idx_webhook_delivery_failed_created` (endpoint, created_at) and
 * `idx_webhook_delivery_failed_id` (endpoint, id), both `WHERE status = 'failed'`; missed ones
 * (failed, skipped, dropped) the `idx_webhook_delivery_missed_*` pair.
 */
@Injectable()
export class DeliveryRecoveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Of the endpoint's deliveries created at or after `since`, how many failed, skipped or dropped. */
  async countMissedSince(endpointId: number, since: Date): Promise<MissedCounts> {
    const [row]: MissedCounts[] = await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*) FILTER (WHERE status <> 'failed')::int AS skipped
         FROM webhook_delivery
        WHERE endpoint_id = $1 AND ${SCOPE_STATUSES.missed} AND created_at >= $2`,
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
   * counting them and noting the highest id counted, in one statement. With nothing to
   * redeliver the recovery is `done` at once.
   * @returns null when the endpoint already has a running recovery (the unique partial index
   *   `uq_delivery_recovery_running` refused a second one).
   */
  async insert(
    endpointId: number,
    since: Date,
    scope: RecoveryScope,
  ): Promise<RecoveryRecord | null> {
    const rows: RecoveryRecord[] = await this.dataSource.query(
      `INSERT INTO delivery_recovery
              (endpoint_id, scope, since, status, total, last_delivery_id, cursor_delivery_id,
               finished_at)
       SELECT $1, $3, $2, CASE WHEN count(*) = 0 THEN 'done' ELSE 'running' END, count(*),
              coalesce(max(id), 0), coalesce(min(id) - 1, 0),
              CASE WHEN count(*) = 0 THEN now() END
         FROM webhook_delivery
        WHERE endpoint_id = $1 AND ${SCOPE_STATUSES[scope]} AND created_at >= $2
       ON CONFLICT (endpoint_id) WHERE status = 'running' DO NOTHING
       RETURNING ${RECORD_COLUMNS}`,
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
   * Ends recovery `id` as `status` if it is running (waits for a batch under way to commit).
   * @returns the recovery as ended, or null when it was not running.
   */
  async finish(
    id: number,
    status: Exclude<RecoveryStatus, 'running'>,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RecoveryRecord | null> {
    const [rows]: [RecoveryRecord[], number] = await manager.query(
      `UPDATE delivery_recovery SET status = $2, finished_at = now(), batch_delivery_ids = '{}'
        WHERE id = $1 AND status = 'running'
    RETURNING ${RECORD_COLUMNS}`,
      [id, status],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks the first running recovery whose last batch has left `pending` (or was queued more
   * than `staleMs` ago), skipping those another worker holds.
   */
  async claimNext(manager: EntityManager, staleMs: number): Promise<ClaimedRecovery | null> {
    const rows: Array<{
      id: number;
      endpoint_id: number;
      scope: RecoveryScope;
      since: Date;
      last_delivery_id: string;
      cursor_delivery_id: string;
    }> = await manager.query(
      `SELECT r.id, r.endpoint_id, r.scope, r.since, r.last_delivery_id, r.cursor_delivery_id
         FROM delivery_recovery r
        WHERE r.status = 'running'
          AND (r.batch_queued_at IS NULL
               OR r.batch_queued_at < now() - make_interval(secs => $1::double precision / 1000)
               OR NOT EXISTS (SELECT 1 FROM webhook_delivery d
                               WHERE d.id = ANY(r.batch_delivery_ids) AND d.status = 'pending'))
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
      lastDeliveryId: Number(row.last_delivery_id),
      cursorDeliveryId: Number(row.cursor_delivery_id),
    };
  }

  /**
   * Moves the recovery's next `limit` deliveries of its scope (by id, after its cursor, up to its
   * last id) to `pending`, due now, and advances the recovery past them: its cursor, `processed`
   * and its last batch, in the caller's transaction. Each keeps its attempt count: a failed one
   * (beyond the schedule) gets one more attempt, a skipped one (none yet) the whole schedule.
   * @returns the deliveries moved, to queue after the commit; empty when none is left.
   */
  async moveBatch(
    manager: EntityManager,
    recovery: ClaimedRecovery,
    limit: number,
  ): Promise<QueuedDelivery[]> {
    const [rows]: [Array<{ id: string; endpoint_id: number }>, number] = await manager.query(
      `UPDATE webhook_delivery d SET status = 'pending', next_attempt_at = now()
         FROM (SELECT id FROM webhook_delivery
                WHERE endpoint_id = $1 AND ${SCOPE_STATUSES[recovery.scope]} AND created_at >= $2
                  AND id > $3 AND id <= $4
                ORDER BY id
                LIMIT $5
                  FOR UPDATE) s
        WHERE d.id = s.id
    RETURNING d.id, d.endpoint_id`,
      [
        recovery.endpointId,
        recovery.since,
        recovery.cursorDeliveryId,
        recovery.lastDeliveryId,
        limit,
      ],
    );
    const moved = rows
      .map((row) => ({ id: Number(row.id), endpointId: row.endpoint_id }))
      .sort((a, b) => a.id - b.id);
    if (moved.length === 0) return moved;
    await this.advance(manager, recovery.id, moved);
    return moved;
  }

  /**
   * Whether any delivery is left for the recovery: `FOR UPDATE` with `LIMIT` may return fewer
   * rows than there are (rows that changed while it waited for their locks are left out), so an
   * empty batch alone does not prove the recovery is done.
   */
  async anyLeft(manager: EntityManager, recovery: ClaimedRecovery): Promise<boolean> {
    const [row]: Array<{ left: boolean }> = await manager.query(
      `SELECT EXISTS (SELECT 1 FROM webhook_delivery
                       WHERE endpoint_id = $1 AND ${SCOPE_STATUSES[recovery.scope]}
                         AND created_at >= $2 AND id > $3 AND id <= $4) AS left`,
      [recovery.endpointId, recovery.since, recovery.cursorDeliveryId, recovery.lastDeliveryId],
    );
    return row.left;
  }

  /** Moves the recovery's cursor past `moved`, counts them and notes them as its last batch. */
  private async advance(
    manager: EntityManager,
    recoveryId: number,
    moved: QueuedDelivery[],
  ): Promise<void> {
    await manager.query(
      `UPDATE delivery_recovery
          SET processed = processed + $2, cursor_delivery_id = $3,
              batch_delivery_ids = $4::bigint[], batch_queued_at = now()
        WHERE id = $1`,
      [recoveryId, moved.length, moved[moved.length - 1].id, moved.map((m) => m.id)],
    );
  }
}
