import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { DeliveryStatus } from './webhook-delivery.entity';
import type { SendResult } from './webhook-sender';
import type { QueuedDelivery } from './delivery-queue';

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

/** An attempt to record, and what it does to its delivery (`next` null: leave the delivery as is). */
export interface NewAttempt {
  endpointId: number;
  deliveryId: number | null;
  messageId: string;
  result: SendResult;
  next: { status: DeliveryStatus; nextAttemptAt: Date | null } | null;
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

  /** Inserts events and one pending delivery per (event, endpoint) pair; returns the deliveries. */
  async insertEvents(
    manager: EntityManager,
    campaignId: number,
    events: NewEvent[],
    pairs: Array<{ eventId: string; endpointId: number }>,
  ): Promise<QueuedDelivery[]> {
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
    const rows: Array<{ id: string; endpoint_id: number }> = await manager.query(
      `INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at)
       SELECT p.event_id, p.endpoint_id, 'pending', 0, now()
         FROM unnest($1::uuid[], $2::int[]) AS p(event_id, endpoint_id)
       RETURNING id, endpoint_id`,
      [pairs.map((p) => p.eventId), pairs.map((p) => p.endpointId)],
    );
    return rows.map((row) => ({ id: Number(row.id), endpointId: row.endpoint_id }));
  }

  /**
   * Reads deliveries for the worker in batches: the lookups of concurrent jobs made within
   * 2 ms of each other share one query (no caching: every lookup reads current state).
   */
  private readonly work = new DataLoader<number, DeliveryWork | null>(
    (ids) => this.findWorkMany(ids),
    {
      cache: false,
      maxBatchSize: 500,
      batchScheduleFn: (callback) => setTimeout(callback, 2),
    },
  );

  /** The delivery and its event's exact body, or null when it no longer exists. */
  findWork(deliveryId: number): Promise<DeliveryWork | null> {
    return this.work.load(deliveryId);
  }

  private async findWorkMany(ids: readonly number[]): Promise<Array<DeliveryWork | null>> {
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
        WHERE d.id = ANY($1::bigint[])`,
      [ids],
    );
    const byId = new Map(
      rows.map((row) => [
        Number(row.id),
        {
          id: Number(row.id),
          status: row.status,
          attemptCount: row.attempt_count,
          endpointId: row.endpoint_id,
          eventId: row.event_id,
          body: row.body,
        },
      ]),
    );
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * Records attempts and moves their deliveries on, in the caller's transaction: one INSERT
   * and at most one UPDATE whatever the number of attempts.
   * @returns the attempt rows, in the order of `attempts`.
   */
  async recordAttempts(manager: EntityManager, attempts: NewAttempt[]): Promise<AttemptRecord[]> {
    const rows: Array<AttemptRecord & { id: string; delivery_id: string | null }> =
      await manager.query(
        `INSERT INTO webhook_delivery_attempt
         (endpoint_id, delivery_id, message_id, attempted_at, duration_ms, status_code, success, error, response_excerpt)
       SELECT a.endpoint_id, a.delivery_id, a.message_id, a.attempted_at, a.duration_ms, a.status_code, a.success, a.error, a.response_excerpt
         FROM unnest($1::int[], $2::bigint[], $3::text[], $4::timestamptz[], $5::float8[], $6::int[], $7::bool[], $8::text[], $9::text[])
              AS a(endpoint_id, delivery_id, message_id, attempted_at, duration_ms, status_code, success, error, response_excerpt)
       RETURNING id, delivery_id, endpoint_id, message_id AS webhook_id, attempted_at, duration_ms, status_code, success, error, response_excerpt`,
        [
          attempts.map((a) => a.endpointId),
          attempts.map((a) => a.deliveryId),
          attempts.map((a) => a.messageId),
          attempts.map((a) => a.result.attemptedAt),
          attempts.map((a) => a.result.durationMs),
          attempts.map((a) => a.result.statusCode),
          attempts.map((a) => a.result.success),
          attempts.map((a) => a.result.error),
          attempts.map((a) => a.result.responseExcerpt),
        ],
      );
    const moved = attempts.filter((a) => a.deliveryId !== null);
    if (moved.length > 0) {
      await manager.query(
        `UPDATE webhook_delivery d
            SET attempt_count = d.attempt_count + 1,
                status = COALESCE(u.status, d.status),
                next_attempt_at = CASE WHEN u.status IS NULL THEN d.next_attempt_at ELSE u.next_attempt_at END
           FROM unnest($1::bigint[], $2::varchar[], $3::timestamptz[]) AS u(id, status, next_attempt_at)
          WHERE d.id = u.id`,
        [
          moved.map((a) => a.deliveryId),
          moved.map((a) => a.next?.status ?? null),
          moved.map((a) => a.next?.nextAttemptAt ?? null),
        ],
      );
    }
    const key = (endpointId: number, messageId: string, at: Date) =>
      `${endpointId}|${messageId}|${at.getTime()}`;
    const byKey = new Map(
      rows.map((row) => [key(row.endpoint_id, row.webhook_id, row.attempted_at), row]),
    );
    return attempts.map((a) => {
      const row = byKey.get(key(a.endpointId, a.messageId, a.result.attemptedAt))!;
      return {
        ...row,
        id: Number(row.id),
        delivery_id: row.delivery_id === null ? null : Number(row.delivery_id),
        event_type: null,
      };
    });
  }

  /** Marks a delivery dropped (its endpoint was disabled or deleted before the attempt). */
  async markDropped(deliveryId: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_delivery SET status = 'dropped', next_attempt_at = NULL WHERE id = $1 AND status = 'pending'`,
      [deliveryId],
    );
  }

  /** Pending deliveries whose attempt is overdue by `graceMs`: committed but never queued, or lost by Redis. */
  async findOverdue(graceMs: number, limit: number): Promise<QueuedDelivery[]> {
    const rows: Array<{ id: string; endpoint_id: number }> = await this.dataSource.query(
      `SELECT id, endpoint_id FROM webhook_delivery
        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY next_attempt_at
        LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((row) => ({ id: Number(row.id), endpointId: row.endpoint_id }));
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
