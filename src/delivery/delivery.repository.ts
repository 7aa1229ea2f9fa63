import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { DeliveryStatus } from './webhook-delivery.entity';
import type { SendResult } from './webhook-sender';

/** An event row about to be recorded. */
export interface NewEvent {
  id: string;
  type: string;
  body: string;
  createdAt: Date;
}

/** A delivery with what an attempt needs. */
export interface DeliveryWork {
  id: number;
  status: DeliveryStatus;
  attemptCount: number;
  endpointId: number;
  eventId: string;
  body: string;
}

/** One recorded attempt, as the CLI prints it. */
export interface AttemptRecord {
  id: number;
  delivery_id: number | null;
  endpoint_id: number;
  webhook_id: string;
  event_type: string | null;
  attempted_at: Date;
  duration_ms: number;
  status_code: number | null;
  success: boolean;
  error: string | null;
  response_excerpt: string | null;
}

/**
 * The SQL of the outbox and delivery log, each statement written once (STYLE). Events and
 * deliveries are written in bulk (`unnest`), a few statements per upload whatever its size.
 */
@Injectable()
export class DeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inserts events and one pending delivery per (event, endpoint) pair; returns the delivery ids. */
  async insertEvents(
    manager: EntityManager,
    campaignId: number,
    events: NewEvent[],
    pairs: Array<{ eventId: string; endpointId: number }>,
  ): Promise<number[]> {
    if (events.length === 0) return [];
    await manager.query(
      `INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
       SELECT e.id, $1, e.type, e.body, e.created_at
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::timestamptz[]) AS e(id, type, body, created_at)`,
      [
        campaignId,
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => e.body),
        events.map((e) => e.createdAt),
      ],
    );
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at)
       SELECT p.event_id, p.endpoint_id, 'pending', 0, now()
         FROM unnest($1::uuid[], $2::int[]) AS p(event_id, endpoint_id)
       RETURNING id`,
      [pairs.map((p) => p.eventId), pairs.map((p) => p.endpointId)],
    );
    return rows.map((row) => Number(row.id));
  }

  /** The delivery and its event's exact body, or null when it no longer exists. */
  async findWork(deliveryId: number): Promise<DeliveryWork | null> {
    const rows: Array<{
      id: string;
      status: DeliveryStatus;
      attempt_count: number;
      endpoint_id: number;
      event_id: string;
      body: string;
    }> = await this.dataSource.query(
      `SELECT d.id, d.status, d.attempt_count, d.endpoint_id, d.event_id, e.body
           FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
          WHERE d.id = $1`,
      [deliveryId],
    );
    const row = rows[0];
    return row
      ? {
          id: Number(row.id),
          status: row.status,
          attemptCount: row.attempt_count,
          endpointId: row.endpoint_id,
          eventId: row.event_id,
          body: row.body,
        }
      : null;
  }

  /**
   * Records an attempt and moves its delivery on, in the caller's transaction.
   * @param next the delivery's new status and next attempt time (null: leave the delivery as is).
   */
  async recordAttempt(
    manager: EntityManager,
    endpointId: number,
    deliveryId: number | null,
    messageId: string,
    result: SendResult,
    next: { status: DeliveryStatus; nextAttemptAt: Date | null } | null,
  ): Promise<AttemptRecord> {
    const [attempt]: Array<AttemptRecord & { id: string; delivery_id: string | null }> =
      await manager.query(
        `INSERT INTO webhook_delivery_attempt
         (endpoint_id, delivery_id, message_id, attempted_at, duration_ms, status_code, success, error, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING id, delivery_id, endpoint_id, message_id AS webhook_id, attempted_at, duration_ms, status_code, success, error, response_excerpt`,
        [
          endpointId,
          deliveryId,
          messageId,
          result.attemptedAt,
          result.durationMs,
          result.statusCode,
          result.success,
          result.error,
          result.responseExcerpt,
        ],
      );
    if (deliveryId !== null) {
      await manager.query(
        `UPDATE webhook_delivery
            SET attempt_count = attempt_count + 1,
                status = COALESCE($2, status),
                next_attempt_at = CASE WHEN $2::varchar IS NULL THEN next_attempt_at ELSE $3 END
          WHERE id = $1`,
        [deliveryId, next?.status ?? null, next?.nextAttemptAt ?? null],
      );
    }
    return {
      ...attempt,
      id: Number(attempt.id),
      delivery_id: attempt.delivery_id === null ? null : Number(attempt.delivery_id),
      event_type: null,
    };
  }

  /** Marks a delivery dropped (its endpoint was disabled or deleted before the attempt). */
  async markDropped(deliveryId: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_delivery SET status = 'dropped', next_attempt_at = NULL WHERE id = $1 AND status = 'pending'`,
      [deliveryId],
    );
  }

  /** Pending deliveries whose attempt is overdue by `graceMs`: committed but never queued, or lost by Redis. */
  async findOverdue(graceMs: number, limit: number): Promise<number[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM webhook_delivery
        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY next_attempt_at
        LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => Number(row.id));
  }

  /** The newest attempts of an endpoint, with their event type. */
  async listAttempts(endpointId: number, limit: number): Promise<AttemptRecord[]> {
    const rows: Array<AttemptRecord & { id: string; delivery_id: string | null }> =
      await this.dataSource.query(
        `SELECT a.id, a.delivery_id, a.endpoint_id, a.message_id AS webhook_id, e.type AS event_type, a.attempted_at,
              a.duration_ms, a.status_code, a.success, a.error, a.response_excerpt
         FROM webhook_delivery_attempt a
         LEFT JOIN webhook_delivery d ON d.id = a.delivery_id
         LEFT JOIN webhook_event e ON e.id = d.event_id
        WHERE a.endpoint_id = $1
        ORDER BY a.id DESC
        LIMIT $2`,
        [endpointId, limit],
      );
    return rows.map((row) => ({
      ...row,
      id: Number(row.id),
      delivery_id: row.delivery_id === null ? null : Number(row.delivery_id),
    }));
  }
}
