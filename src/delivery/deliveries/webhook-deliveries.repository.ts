import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { QueuedDelivery } from './queued-delivery';
import type { DeliveryStatus } from './webhook-delivery.entity';

/** A delivery about to be recorded: an event to an endpoint subscribed to its type. */
export interface DeliveryPair {
  eventId: string;
  endpointId: number;
  /** The endpoint is disabled: the delivery is recorded as `skipped`, never queued. */
  skipped: boolean;
}

/** One more attempt of a delivery, and its next state (null: leave status and schedule as they are). */
export interface DeliveryMove {
  deliveryId: number;
  next: { status: DeliveryStatus; nextAttemptAt: Date | null } | null;
}

/**
 * The writes of `webhook_delivery`: deliveries recorded with their events in the caller's
 * transaction (docs/webhooks.md#events), moved on by their attempts, held back by a throttle,
 * dropped.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts one delivery per (event, endpoint) pair, in the caller's transaction, in one
   * INSERT. A pair with `skipped` is written with status `skipped` and no `next_attempt_at`
   * (never queued, never swept); the others are pending and due now (docs/webhooks.md#events).
   * @returns the pending deliveries, to queue after the commit.
   */
  async insertDeliveries(manager: EntityManager, pairs: DeliveryPair[]): Promise<QueuedDelivery[]> {
    if (pairs.length === 0) return [];
    const rows: Array<{ id: string; endpoint_id: number; status: DeliveryStatus }> =
      await manager.query(
        `INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at)
         SELECT p.event_id, p.endpoint_id, CASE WHEN p.skipped THEN 'skipped' ELSE 'pending' END, 0,
                CASE WHEN p.skipped THEN NULL ELSE now() END
           FROM unnest($1::uuid[], $2::int[], $3::bool[]) AS p(event_id, endpoint_id, skipped)
         RETURNING id, endpoint_id, status`,
        [pairs.map((p) => p.eventId), pairs.map((p) => p.endpointId), pairs.map((p) => p.skipped)],
      );
    return rows
      .filter((row) => row.status === 'pending')
      .map((row) => ({ id: Number(row.id), endpointId: row.endpoint_id }));
  }

  /**
   * Counts one more attempt on each delivery and applies its next state (null: unchanged), in
   * the caller's transaction (the attempt's): one UPDATE whatever the number of moves.
   */
  async moveOn(manager: EntityManager, moves: DeliveryMove[]): Promise<void> {
    if (moves.length === 0) return;
    await manager.query(
      `UPDATE webhook_delivery d
          SET attempt_count = d.attempt_count + u.n,
              status = COALESCE(u.status, d.status),
              next_attempt_at = CASE WHEN u.status IS NULL THEN d.next_attempt_at ELSE u.next_attempt_at END
         FROM (SELECT id, count(*)::int AS n, (array_agg(status))[1] AS status, (array_agg(next_attempt_at))[1] AS next_attempt_at
                 FROM unnest($1::bigint[], $2::varchar[], $3::timestamptz[]) AS m(id, status, next_attempt_at)
                GROUP BY id) AS u
        WHERE d.id = u.id`,
      [
        moves.map((m) => m.deliveryId),
        moves.map((m) => m.next?.status ?? null),
        moves.map((m) => m.next?.nextAttemptAt ?? null),
      ],
    );
  }

  /**
   * Records that pending deliveries wait on their endpoint's throttle for `waitMs` ms
   * (docs/webhooks.md#throttling): `throttled_until`, by the database's clock. Their status,
   * attempt count and `next_attempt_at` stay as they are; the sweeper leaves them to their job
   * until then ({@link findOverdue}).
   */
  async markThrottled(deliveryIds: readonly number[], waitMs: number): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.dataSource.query(
      `UPDATE webhook_delivery
          SET throttled_until = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id = ANY($1::bigint[]) AND status = 'pending'`,
      [deliveryIds, waitMs],
    );
  }

  /** Marks a delivery dropped (its endpoint was disabled or deleted before the attempt). */
  async markDropped(deliveryId: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_delivery SET status = 'dropped', next_attempt_at = NULL WHERE id = $1 AND status = 'pending'`,
      [deliveryId],
    );
  }

  /**
   * Moves deliveries back to `pending`, due now, in the caller's transaction (a bulk recovery's
   * batch, docs/webhooks.md#bulk-recovery; the caller locked them): each keeps its attempt
   * count, and one already pending (waiting on a retry) keeps an earlier due time.
   * @returns the deliveries moved, each with whether an attempt of it is under way.
   */
  async moveBackToPending(
    manager: EntityManager,
    deliveryIds: readonly number[],
  ): Promise<Array<QueuedDelivery & { inFlight: boolean }>> {
    if (deliveryIds.length === 0) return [];
    const [rows]: [Array<{ id: string; endpoint_id: number; in_flight: boolean }>, number] =
      await manager.query(
        `UPDATE webhook_delivery d
            SET status = 'pending',
                next_attempt_at = CASE WHEN d.status = 'pending'
                                       THEN LEAST(d.next_attempt_at, now()) ELSE now() END
          WHERE d.id = ANY($1::bigint[])
      RETURNING d.id, d.endpoint_id,
                EXISTS (SELECT 1 FROM webhook_delivery_attempt a
                         WHERE a.delivery_id = d.id AND a.finished_at IS NULL) AS in_flight`,
        [deliveryIds],
      );
    return rows.map((row) => ({
      id: Number(row.id),
      endpointId: row.endpoint_id,
      inFlight: row.in_flight,
    }));
  }
}
