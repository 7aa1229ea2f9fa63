import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { QueuedDelivery } from './queued-delivery';
import type { DeliveryStatus, DeliveryStatusReason } from './webhook-delivery.entity';

/** A delivery about to be recorded: an event to an endpoint subscribed to its type. */
export interface DeliveryPair {
  eventId: string;
  endpointId: number;
  /** The endpoint is disabled: the delivery is recorded as `skipped`, never queued. */
  skipped: boolean;
  /**
   * The lead the event names, for an endpoint with `ordering = 'per_lead'`
   * (docs/webhooks.md#per-lead-ordering); null (or absent) otherwise: the delivery is never held.
   */
  leadId?: number | null;
}

/**
 * The first key of the transaction-level advisory locks that keep each lead's events in commit
 * order (`pg_advisory_xact_lock(LEAD_SEQUENCE_LOCK, lead)`): "LEAD" in ASCII.
 */
export const LEAD_SEQUENCE_LOCK = 0x4c454144;

/** One more attempt of a delivery, and its next state (null: leave status and schedule as they are). */
export interface DeliveryMove {
  deliveryId: number;
  next: {
    status: DeliveryStatus;
    nextAttemptAt: Date | null;
    /** Why it moved there, where the status alone does not say; absent or null: no reason. */
    reason?: DeliveryStatusReason | null;
  } | null;
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
    // Without a lead on any pair (no ordered endpoint), no lead column is sent at all.
    const leads = pairs.some((p) => p.leadId != null) ? pairs.map((p) => p.leadId ?? null) : null;
    const rows: Array<{ id: string; endpoint_id: number; status: DeliveryStatus }> =
      await manager.query(
        `INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at, lead_id)
         SELECT p.event_id, p.endpoint_id, CASE WHEN p.skipped THEN 'skipped' ELSE 'pending' END, 0,
                CASE WHEN p.skipped THEN NULL ELSE now() END, ($4::bigint[])[p.ord]
           FROM unnest($1::uuid[], $2::int[], $3::bool[]) WITH ORDINALITY AS p(event_id, endpoint_id, skipped, ord)
          ORDER BY p.ord
         RETURNING id, endpoint_id, status`,
        [
          pairs.map((p) => p.eventId),
          pairs.map((p) => p.endpointId),
          pairs.map((p) => p.skipped),
          leads,
        ],
      );
    return rows
      .filter((row) => row.status === 'pending')
      .map((row) => ({ id: Number(row.id), endpointId: row.endpoint_id }));
  }

  /**
   * Waits until no other transaction is recording events for `leadIds`, and keeps them from
   * doing so until the caller's transaction ends (transaction-level advisory locks, taken in id
   * order). Deliveries inserted after it get higher ids than those of every transaction that
   * recorded an event of these leads before, and lower than every one after: a lead's delivery
   * ids are in commit order (docs/webhooks.md#per-lead-ordering).
   */
  async lockLeadSequences(manager: EntityManager, leadIds: readonly number[]): Promise<void> {
    if (leadIds.length === 0) return;
    const sorted = [...new Set(leadIds)].sort((a, b) => a - b);
    await manager.query(
      `SELECT pg_advisory_xact_lock($1::int, (l % 2147483647)::int) FROM unnest($2::bigint[]) AS l`,
      [LEAD_SEQUENCE_LOCK, sorted],
    );
  }

  /**
   * Counts one more attempt on each delivery and applies its next state (null: unchanged), in
   * the caller's transaction (the attempt's): one UPDATE whatever the number of moves. A
   * delivery an erasure cancelled while its attempt was in flight stays `skipped`
   * (docs/privacy.md#attempts-in-flight).
   */
  async moveOn(manager: EntityManager, moves: DeliveryMove[]): Promise<void> {
    if (moves.length === 0) return;
    await manager.query(
      `UPDATE webhook_delivery d
          SET attempt_count = d.attempt_count + u.n,
              status = CASE WHEN u.status IS NULL OR d.status_reason = 'erased' THEN d.status ELSE u.status END,
              next_attempt_at = CASE WHEN u.status IS NULL OR d.status_reason = 'erased' THEN d.next_attempt_at ELSE u.next_attempt_at END,
              status_reason = CASE WHEN u.status IS NULL OR d.status_reason = 'erased' THEN d.status_reason ELSE u.reason END
         FROM (SELECT id, count(*)::int AS n, (array_agg(status))[1] AS status, (array_agg(next_attempt_at))[1] AS next_attempt_at,
                      (array_agg(reason))[1] AS reason
                 FROM unnest($1::bigint[], $2::varchar[], $3::timestamptz[], $4::varchar[]) AS m(id, status, next_attempt_at, reason)
                GROUP BY id) AS u
        WHERE d.id = u.id`,
      [
        moves.map((m) => m.deliveryId),
        moves.map((m) => m.next?.status ?? null),
        moves.map((m) => m.next?.nextAttemptAt ?? null),
        moves.map((m) => m.next?.reason ?? null),
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

  /**
   * Holds each of `deliveries` (pending, of an ordered endpoint, with a lead) that has an
   * earlier pending delivery of the same lead to the same endpoint
   * (docs/webhooks.md#per-lead-ordering): `held_by` names the latest such delivery, and
   * `next_attempt_at` is cleared (the sweeper leaves it alone), until that one ends and
   * releases it. The delivery held behind is locked (`FOR SHARE`) until the caller's commit:
   * one that is ending meanwhile is waited for and, no longer pending, not held behind, so a
   * hold never names a delivery that has already released what waits behind it.
   * @returns the held deliveries' ids, each with the id of the delivery it waits behind.
   */
  async holdBehindEarlier(
    deliveries: ReadonlyArray<{ id: number; endpointId: number; leadId: number }>,
  ): Promise<Map<number, number>> {
    if (deliveries.length === 0) return new Map();
    const [rows]: [Array<{ id: string; held_by: string }>, number] = await this.dataSource.query(
      `UPDATE webhook_delivery d SET held_by = p.id, next_attempt_at = NULL
         FROM unnest($1::bigint[], $2::int[], $3::bigint[]) AS w(id, endpoint_id, lead_id)
              CROSS JOIN LATERAL (
                SELECT e.id FROM webhook_delivery e
                 WHERE e.endpoint_id = w.endpoint_id AND e.lead_id = w.lead_id AND e.id < w.id
                   AND e.status = 'pending' AND e.lead_id IS NOT NULL
                 ORDER BY e.id DESC LIMIT 1
                   FOR SHARE) AS p
        WHERE d.id = w.id AND d.status = 'pending'
    RETURNING d.id, d.held_by`,
      [
        deliveries.map((d) => d.id),
        deliveries.map((d) => d.endpointId),
        deliveries.map((d) => d.leadId),
      ],
    );
    return new Map(rows.map((row) => [Number(row.id), Number(row.held_by)]));
  }

  /**
   * For each (endpoint, lead) whose delivery `afterId` just ended, the next pending delivery of
   * that lead to that endpoint, if it is not held and is due: the one the end released (or one
   * not looked at yet), to queue at once rather than wait for the sweeper.
   * @returns one entry per `ended`, in its order: the next delivery, or null.
   */
  async findNextOfLeads(
    ended: ReadonlyArray<{ endpointId: number; leadId: number; afterId: number }>,
  ): Promise<Array<QueuedDelivery | null>> {
    if (ended.length === 0) return [];
    const rows: Array<{ ord: string; id: string; endpoint_id: number }> =
      await this.dataSource.query(
        `SELECT w.ord, n.id, n.endpoint_id
           FROM unnest($1::int[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS w(endpoint_id, lead_id, after_id, ord)
                CROSS JOIN LATERAL (
                  SELECT e.id, e.endpoint_id, e.held_by, e.next_attempt_at FROM webhook_delivery e
                   WHERE e.endpoint_id = w.endpoint_id AND e.lead_id = w.lead_id AND e.id > w.after_id
                     AND e.status = 'pending' AND e.lead_id IS NOT NULL
                   ORDER BY e.id LIMIT 1) AS n
          WHERE n.held_by IS NULL AND n.next_attempt_at <= now()`,
        [ended.map((e) => e.endpointId), ended.map((e) => e.leadId), ended.map((e) => e.afterId)],
      );
    const next: Array<QueuedDelivery | null> = ended.map(() => null);
    for (const row of rows) {
      next[Number(row.ord) - 1] = { id: Number(row.id), endpointId: row.endpoint_id };
    }
    return next;
  }

  /**
   * Marks a pending delivery skipped with `reason` (its endpoint's transformation returned
   * null: docs/webhooks.md#transformations). Nothing was sent; no attempt is recorded.
   * @returns whether it was still pending (and so is skipped now).
   */
  async markSkipped(deliveryId: number, reason: DeliveryStatusReason): Promise<boolean> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `UPDATE webhook_delivery SET status = 'skipped', status_reason = $2, next_attempt_at = NULL
        WHERE id = $1 AND status = 'pending'`,
      [deliveryId, reason],
    );
    return count > 0;
  }

  /**
   * Cancels the deliveries of `eventIds` that are not sent yet, in the caller's transaction (an
   * erasure, docs/privacy.md#erasure): `skipped` with `status_reason = 'erased'`, so the ledger
   * counts them skipped; a job already queued for one finds it no longer pending. Read through
   * `uq_webhook_delivery_event_id_endpoint_id`.
   * @returns every delivery of the events (cancelled or not), each with its `created_at` to the
   *   millisecond as its attempts store it (their partition key), and how many were cancelled.
   */
  async cancelErased(
    manager: EntityManager,
    eventIds: string[],
  ): Promise<{ deliveries: Array<{ id: number; createdAt: string }>; cancelled: number }> {
    const rows: Array<{ id: string; created_at: string; was_pending: boolean }> =
      await manager.query(
        `WITH cancelled AS (
         UPDATE webhook_delivery SET status = 'skipped', status_reason = 'erased', next_attempt_at = NULL
          WHERE event_id = ANY($1::uuid[]) AND status = 'pending'
          RETURNING id)
       SELECT d.id, date_trunc('milliseconds', d.created_at)::text AS created_at,
              c.id IS NOT NULL AS was_pending
         FROM webhook_delivery d LEFT JOIN cancelled c ON c.id = d.id
        WHERE d.event_id = ANY($1::uuid[])`,
        [eventIds],
      );
    return {
      deliveries: rows.map((row) => ({ id: Number(row.id), createdAt: row.created_at })),
      cancelled: rows.filter((row) => row.was_pending).length,
    };
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
            SET status = 'pending', status_reason = NULL,
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
