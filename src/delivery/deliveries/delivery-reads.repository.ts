import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { LedgerDay } from '../analytics';
import type { TraceCarrier } from '../../tracing/trace-hooks';
import type { QueuedDelivery } from './queued-delivery';
import type { DeliveryStatus } from './webhook-delivery.entity';

/** A delivery with what an attempt needs. */
export interface DeliveryWork {
  id: number;
  status: DeliveryStatus;
  attemptCount: number;
  endpointId: number;
  eventId: string;
  /** The event's type, e.g. `lead.created`. */
  eventType: string;
  body: string;
  /** How long until its next attempt is due, by PostgreSQL's clock, in ms; 0 when due. */
  waitMs: number;
  /** When its event was recorded. */
  eventCreatedAt: Date;
  /** The trace context its event was recorded in (docs/operations.md#traces), or null. */
  traceContext: TraceCarrier | null;
  /**
   * The lead whose order it keeps, on an ordered endpoint (docs/webhooks.md#per-lead-ordering);
   * null: it is never held.
   */
  leadId: number | null;
}

/** A pending delivery found overdue by the sweeper. */
export interface OverdueDelivery extends QueuedDelivery {
  /** Its `next_attempt_at` as PostgreSQL prints it (microseconds kept, for the page cursor). */
  nextAttemptAt: string;
}

/**
 * The reads of `webhook_delivery` (with its event's body): a delivery's work for the worker,
 * the sweeper's overdue deliveries, an endpoint's ledger (docs/dashboard.md#delivery-ledger).
 */
@Injectable()
export class DeliveryReadsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
      event_type: string;
      body: string;
      wait_ms: number;
      event_created_at: Date;
      trace_context: TraceCarrier | null;
      lead_id: string | null;
    }> = await this.dataSource.query(
      `SELECT d.id, d.status, d.attempt_count, d.endpoint_id, d.event_id, e.type AS event_type, e.body,
              e.created_at AS event_created_at, e.trace_context, d.lead_id,
              GREATEST(0, ceil(extract(epoch FROM d.next_attempt_at - now()) * 1000))::int AS wait_ms
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
          eventType: row.event_type,
          body: row.body,
          waitMs: row.wait_ms ?? 0,
          eventCreatedAt: row.event_created_at,
          traceContext: row.trace_context,
          leadId: row.lead_id === null ? null : Number(row.lead_id),
        },
      ]),
    );
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * An endpoint's deliveries of the last `days` UTC days (today, by PostgreSQL's clock, and the
   * `days - 1` before it), counted by day of `created_at` and by status
   * (docs/dashboard.md#delivery-ledger): newest first, one row per day, zeros for a day without
   * deliveries. `skipped` counts the `skipped` and the `dropped` deliveries; `throttled`, the
   * pending ones put back by the endpoint's throttle and not attempted since (`throttled_until`
   * at or after `next_attempt_at`: a failed attempt moves `next_attempt_at` past it). The
   * deliveries are read from one range of `idx_webhook_delivery_endpoint_id_created_at` (endpoint, time).
   * `filtered` is not a delivery: the events of the day the endpoint's payload filter left out
   * (`endpoint_filtered_day`, docs/webhooks.md#payload-filters).
   * @param days 1 to 90 (the caller checks).
   */
  async countDeliveriesByDay(endpointId: number, days: number): Promise<LedgerDay[]> {
    return this.dataSource.query(
      `WITH bounds AS (
         SELECT (now() AT TIME ZONE 'UTC')::date AS today,
                (now() AT TIME ZONE 'UTC')::date - ($2::int - 1) AS first_day),
       counts AS (
         SELECT (d.created_at AT TIME ZONE 'UTC')::date AS day,
                count(*)::int AS matched,
                count(*) FILTER (WHERE d.status = 'succeeded')::int AS delivered,
                count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
                count(*) FILTER (WHERE d.status = 'pending')::int AS pending,
                count(*) FILTER (WHERE d.status = 'pending' AND d.throttled_until IS NOT NULL
                                   AND d.throttled_until >= d.next_attempt_at)::int AS throttled,
                count(*) FILTER (WHERE d.status IN ('skipped', 'dropped'))::int AS skipped
           FROM webhook_delivery d, bounds b
          WHERE d.endpoint_id = $1
            AND d.created_at >= b.first_day::timestamp AT TIME ZONE 'UTC'
          GROUP BY 1)
       SELECT to_char(s.day, 'YYYY-MM-DD') AS day,
              COALESCE(c.matched, 0) AS matched, COALESCE(c.delivered, 0) AS delivered,
              COALESCE(c.failed, 0) AS failed, COALESCE(c.pending, 0) AS pending,
              COALESCE(c.throttled, 0) AS throttled,
              COALESCE(c.skipped, 0) AS skipped,
              COALESCE(f.filtered, 0) AS filtered
         FROM bounds b
        CROSS JOIN LATERAL generate_series(b.first_day, b.today, interval '1 day') AS s(day)
         LEFT JOIN counts c ON c.day = s.day::date
         LEFT JOIN endpoint_filtered_day f ON f.endpoint_id = $1 AND f.day = s.day::date
        ORDER BY s.day DESC`,
      [endpointId, days],
    );
  }

  /**
   * The campaign's `limit` most recently recorded events of `types`, newest first, with their
   * exact bodies (a payload filter's preview, docs/dashboard.md#payload-filter-preview): one
   * range of `idx_webhook_event_campaign_id_created_at`.
   */
  async recentEvents(
    campaignId: number,
    types: readonly string[],
    limit: number,
  ): Promise<Array<{ id: string; type: string; body: string; createdAt: Date }>> {
    const rows: Array<{ id: string; type: string; body: string; created_at: Date }> =
      await this.dataSource.query(
        `SELECT id, type, body, created_at FROM webhook_event
          WHERE campaign_id = $1 AND type = ANY($2::text[])
          ORDER BY created_at DESC, id DESC LIMIT $3`,
        [campaignId, types, limit],
      );
    return rows.map((r) => ({ id: r.id, type: r.type, body: r.body, createdAt: r.created_at }));
  }

  /**
   * Pending deliveries whose attempt is overdue by `graceMs` (committed but never queued, or
   * lost by Redis), oldest first, `limit` at a time.
   * @param after the last row of the previous page (keyset pagination).
   * @param queuedBefore only deliveries due more than `graceMs` before this time (ms since the
   *   epoch; null: no such bound).
   */
  async findOverdue(
    graceMs: number,
    limit: number,
    after?: OverdueDelivery,
    queuedBefore: number | null = null,
  ): Promise<OverdueDelivery[]> {
    const rows: Array<{ id: string; endpoint_id: number; next_attempt_at: string }> =
      await this.dataSource.query(
        `SELECT id, endpoint_id, next_attempt_at::text FROM webhook_delivery d
          WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
            AND ($5::timestamptz IS NULL
                 OR next_attempt_at < $5::timestamptz - make_interval(secs => $1::double precision / 1000))
            AND ($3::timestamptz IS NULL OR (next_attempt_at, id) > ($3::timestamptz, $4::bigint))
            -- Put back for its endpoint's throttle: its job holds it until then.
            AND (throttled_until IS NULL
                 OR throttled_until < now() - make_interval(secs => $1::double precision / 1000))
            -- An attempt in flight is not overdue: its job is alive (or its process died, and
            -- the attempt is closed as abandoned before the delivery is swept again).
            AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempt a
                             WHERE a.delivery_id = d.id AND a.finished_at IS NULL)
          ORDER BY next_attempt_at, id
          LIMIT $2`,
        [
          graceMs,
          limit,
          after?.nextAttemptAt ?? null,
          after?.id ?? null,
          queuedBefore === null ? null : new Date(queuedBefore),
        ],
      );
    return rows.map((row) => ({
      id: Number(row.id),
      endpointId: row.endpoint_id,
      nextAttemptAt: row.next_attempt_at,
    }));
  }
}
