import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { DeliveryStatus } from '../outbox/webhook-delivery.entity';
import type { SendResult } from '../worker/webhook.sender';
import type { QueuedDelivery } from '../outbox/delivery.queue';
import type { LedgerDay } from '../analytics/delivery-ledger';
import type { TraceCarrier } from '../../tracing/trace-hooks';

/** An event row about to be recorded. */
export interface NewEvent {
  id: string;
  type: string;
  body: string;
  /** The lead it is about (`leadIdOf`), or null. */
  leadId: number | null;
  createdAt: Date;
}

/** A delivery about to be recorded: an event to an endpoint subscribed to its type. */
export interface DeliveryPair {
  eventId: string;
  endpointId: number;
  /** The endpoint is disabled: the delivery is recorded as `skipped`, never queued. */
  skipped: boolean;
}

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
}

/** A pending delivery found overdue by the sweeper. */
export interface OverdueDelivery extends QueuedDelivery {
  /** Its `next_attempt_at` as PostgreSQL prints it (microseconds kept, for the page cursor). */
  nextAttemptAt: string;
}

/**
 * The request of an attempt as the delivery log keeps it (docs/dashboard.md#attempt-detail):
 * the URL, the headers with each signature truncated (`loggedHeaders` in webhook-sender.ts),
 * and the body when no event row holds it (pings and test events; a delivery's body is its
 * event's).
 */
export interface RecordedRequest {
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

/** An attempt about to be sent. */
export interface AttemptStart {
  endpointId: number;
  deliveryId: number | null;
  /** The `webhook-id` sent (the event id, `ping_<uuid>` or `test_<uuid>`). */
  messageId: string;
  /** The `type` of the body sent: the event's, a test event's, or `ping`. */
  eventType: string;
  attemptedAt: Date;
  request: RecordedRequest;
  /**
   * Set for a scheduled attempt (absent for redeliveries and test messages): the delivery's
   * attempt count as the caller read it. The attempt is recorded as number `attemptCount + 1`
   * of its delivery, unique: of two jobs that read the same state of a delivery, only one
   * begins an attempt (docs/reliability.md "One scheduled attempt at a time").
   */
  scheduled?: { attemptCount: number };
}

/** An attempt's result, and what it does to its delivery (`next` null: leave the delivery as is). */
export interface NewAttempt {
  endpointId: number;
  deliveryId: number | null;
  messageId: string;
  result: SendResult;
  next: { status: DeliveryStatus; nextAttemptAt: Date | null } | null;
}

/**
 * A begun attempt's row: its id and its partition key (docs/operations.md#retention), the
 * delivery's creation time or, without a delivery, the attempt's own.
 */
export interface AttemptKey {
  id: number;
  deliveryCreatedAt: Date;
}

/** A begun attempt (its row's key) with its result. */
export interface FinishedAttempt extends NewAttempt, AttemptKey {
  /**
   * When the attempt's event was recorded, if a success of this attempt would be its
   * delivery's first (the delivery had not succeeded before): the rollups then count its
   * end-to-end lag (docs/delivery-analytics.md). Absent for pings and test events.
   */
  eventCreatedAt?: Date | null;
}

/** An attempt closed as of unknown outcome, as the health counters and the caller see it. */
export interface ClosedAttempt {
  endpointId: number;
  deliveryId: number | null;
  attemptedAt: Date;
  durationMs: number;
  success: false;
}

/** The error recorded for an attempt whose process stopped before it recorded the result. */
export const UNKNOWN_OUTCOME =
  'outcome unknown: the process stopped before recording the result; the delivery is retried';

/** One recorded attempt, as the CLI prints it (docs/cli.md#commands). */
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
 * Where an attempt stands in the delivery log's order (`attempted_at DESC, id DESC`):
 * `attempted_at` in whole microseconds since the Unix epoch, as decimal digits (PostgreSQL's
 * own precision and range, which a JavaScript `Date` or number would round), and the id.
 */
export interface LogPosition {
  attemptedAtUs: string;
  id: number;
}

/** A finished attempt of the log with its position, for the next page's cursor. */
export interface LoggedAttempt extends AttemptRecord {
  position: LogPosition;
}

/**
 * Which finished attempts of one endpoint to read, newest first (docs/dashboard.md#delivery-log).
 * Every field but `limit` is optional; absent means "any".
 */
export interface AttemptLogFilter {
  success?: boolean;
  /** The `type` of the body sent (`ping` for pings). */
  eventType?: string;
  /** `attempted_at >= from`. */
  from?: Date;
  /** `attempted_at < to`. */
  to?: Date;
  /** Only attempts after this one in the log's order (older, or as old with a smaller id). */
  after?: LogPosition;
  limit: number;
}

/** A finished attempt with the request as recorded, for the attempt's detail. */
export interface AttemptRequestRecord extends AttemptRecord {
  /** Null for attempts recorded before requests were (migration DeliveryLog1795500000001). */
  request_url: string | null;
  request_headers: Record<string, string> | null;
  /** The attempt's own body (pings, test events), else its event's. */
  request_body: string | null;
  /**
   * The response's headers as kept (bounded, credentials redacted: `boundedResponseHeaders`);
   * null when no response came, or for attempts recorded before they were stored.
   */
  response_headers: Record<string, string> | null;
  /** Where the attempt's delivery stands now; null for pings and test events. */
  delivery: DeliveryState | null;
}

/** A delivery as it stands now: its status, attempts so far and when the next one is due. */
export interface DeliveryState {
  status: DeliveryStatus;
  attempt_count: number;
  /** When the next attempt is due; null unless the delivery is pending. */
  next_attempt_at: Date | null;
}

/**
 * The columns of an attempt as {@link AttemptRecord}, for the attempt table aliased `a`. The
 * stored type of a ping is `ping` (so the log's index serves that filter by equality); the
 * record shows null, as `delivery list` always has (docs/cli.md#commands).
 */
const ATTEMPT_COLUMNS = `a.id, a.delivery_id, a.endpoint_id, a.message_id AS webhook_id,
       NULLIF(a.event_type, 'ping') AS event_type, a.attempted_at, a.duration_ms, a.status_code,
       a.success, a.error, a.response_excerpt`;

/**
 * SQL for the `timestamptz` that `us` (a parameter holding whole microseconds since the epoch
 * as decimal digits, a cursor's `attemptedAtUs`) stands for. Seconds and microseconds apart:
 * exact over the whole `timestamptz` range (a float is not).
 */
export function timestampFromMicroseconds(us: string): string {
  const value = `${us}::bigint`;
  return `('epoch'::timestamptz + (${value} / 1000000) * interval '1 second' + (${value} % 1000000) * interval '1 microsecond')`;
}

/** SQL for `column` (a `timestamptz`) in whole microseconds since the epoch, as text. */
export function microsecondsOf(column: string): string {
  return `(extract(epoch FROM ${column}) * 1000000)::bigint::text`;
}

/** The rows of an `UPDATE … RETURNING` (TypeORM answers `[rows, affected]` for an UPDATE). */
function updatedRows<T>(result: unknown): T[] {
  return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as T[];
}

type AttemptRow = AttemptRecord & { id: string; delivery_id: string | null };

function toAttemptRecord(row: AttemptRow): AttemptRecord {
  return {
    id: Number(row.id),
    delivery_id: row.delivery_id === null ? null : Number(row.delivery_id),
    endpoint_id: row.endpoint_id,
    webhook_id: row.webhook_id,
    event_type: row.event_type,
    attempted_at: row.attempted_at,
    duration_ms: row.duration_ms,
    status_code: row.status_code,
    success: row.success,
    error: row.error,
    response_excerpt: row.response_excerpt,
  };
}

/**
 * The SQL of the outbox and delivery log, each statement written once (STYLE). Events and
 * deliveries are written in bulk (`unnest`), a few statements per upload whatever its size.
 */
@Injectable()
export class DeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts events and one delivery per (event, endpoint) pair, in the caller's transaction:
   * one INSERT for the events and one for all the deliveries. A pair with `skipped` is written
   * with status `skipped` and no `next_attempt_at` (never queued, never swept); the others are
   * pending and due now (docs/webhooks.md#events).
   * @param traceContext the trace context the events are recorded in, stored with each
   *   (docs/operations.md#traces); null when tracing is off.
   * @returns the pending deliveries, to queue after the commit.
   */
  async insertEvents(
    manager: EntityManager,
    campaignId: number,
    events: NewEvent[],
    pairs: DeliveryPair[],
    traceContext: TraceCarrier | null = null,
  ): Promise<QueuedDelivery[]> {
    if (events.length === 0) return [];
    await manager.query(
      `INSERT INTO webhook_event (id, campaign_id, type, body, lead_id, created_at, trace_context)
       SELECT e.id, $1, e.type, e.body, e.lead_id, e.created_at, $7::jsonb
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[])
              AS e(id, type, body, lead_id, created_at)`,
      [
        campaignId,
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => e.body),
        events.map((e) => e.leadId),
        events.map((e) => e.createdAt),
        traceContext === null ? null : JSON.stringify(traceContext),
      ],
    );
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
    }> = await this.dataSource.query(
      `SELECT d.id, d.status, d.attempt_count, d.endpoint_id, d.event_id, e.type AS event_type, e.body,
              e.created_at AS event_created_at, e.trace_context,
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
        },
      ]),
    );
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * Writes attempts that are about to be sent (`finished_at` NULL), before any byte leaves,
   * so a send whose result is lost (a killed worker, an outage) is still in the log. A
   * `scheduled` start whose attempt its delivery already has (another job read the same state
   * of the delivery and began it first) is not written.
   * @returns the attempt ids, in the order of `starts`; null for a scheduled start not written.
   */
  async beginAttempts(
    manager: EntityManager,
    starts: AttemptStart[],
  ): Promise<Array<AttemptKey | null>> {
    // Of two scheduled starts of one delivery in one batch, the second is not even tried.
    const claimed = new Set<number>();
    const written = starts.filter((a) => {
      if (!a.scheduled || a.deliveryId === null) return true;
      if (claimed.has(a.deliveryId)) return false;
      claimed.add(a.deliveryId);
      return true;
    });
    const rows: Array<{
      id: string;
      delivery_id: string | null;
      attempt_number: number | null;
      delivery_created_at: Date;
    }> = await manager.query(
      // The partition key is the delivery's creation time (the attempt's own without one), so
      // every attempt of a delivery lands in its partition (docs/operations.md#retention). To
      // the millisecond, so that the Date it comes back as names the row exactly at finish.
      `INSERT INTO webhook_delivery_attempt (endpoint_id, delivery_id, message_id, event_type, attempted_at,
                                             duration_ms, success, request_url, request_headers, request_body,
                                             attempt_number, delivery_created_at)
       SELECT a.endpoint_id, a.delivery_id, a.message_id, a.event_type, a.attempted_at,
              0, false, a.request_url, a.request_headers::json, a.request_body, a.attempt_number,
              date_trunc('milliseconds', COALESCE(d.created_at, a.attempted_at))
         FROM unnest($1::int[], $2::bigint[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9::int[])
              WITH ORDINALITY
              AS a(endpoint_id, delivery_id, message_id, event_type, attempted_at, request_url, request_headers, request_body, attempt_number, ord)
         LEFT JOIN webhook_delivery d ON d.id = a.delivery_id
        ORDER BY a.ord
           ON CONFLICT (delivery_id, attempt_number, delivery_created_at) DO NOTHING
       RETURNING id, delivery_id, attempt_number, delivery_created_at`,
      [
        written.map((a) => a.endpointId),
        written.map((a) => a.deliveryId),
        written.map((a) => a.messageId),
        written.map((a) => a.eventType),
        written.map((a) => a.attemptedAt),
        written.map((a) => a.request.url),
        written.map((a) => JSON.stringify(a.request.headers)),
        written.map((a) => a.request.body),
        written.map((a) => (a.scheduled ? a.scheduled.attemptCount + 1 : null)),
      ],
    );
    // INSERT … SELECT … ORDER BY inserts, and so returns, in that order; a start not written is
    // a scheduled one, so the next row returned is a later start's.
    const ids = new Map<AttemptStart, AttemptKey>();
    let next = 0;
    for (const a of written) {
      const row = rows[next];
      const isOurs =
        row !== undefined &&
        (!a.scheduled ||
          (Number(row.delivery_id) === a.deliveryId &&
            row.attempt_number === a.scheduled.attemptCount + 1));
      if (isOurs) {
        ids.set(a, { id: Number(row.id), deliveryCreatedAt: row.delivery_created_at });
        next += 1;
      }
    }
    return starts.map((a) => ids.get(a) ?? null);
  }

  /**
   * Records the results of begun attempts and moves their deliveries on, in the caller's
   * transaction: one UPDATE per table whatever the number of attempts. An attempt already
   * closed meanwhile (as of unknown outcome, see {@link closeUnfinished}) keeps that record.
   *
   * "Still unfinished" is written `num_nulls(finished_at) = 1`, not `finished_at IS NULL`, on
   * purpose: the latter matches the predicate of the partial index of unfinished attempts, and
   * the planner then scans that index, which under load holds a dead entry for every attempt
   * finished since the last vacuum (thousands: 5 ms per batch in the dispatch benchmark),
   * instead of looking each attempt up by its primary key.
   * @returns the finished rows by attempt id (absent: it was already closed).
   */
  async finishAttempts(
    manager: EntityManager,
    attempts: FinishedAttempt[],
  ): Promise<Map<number, AttemptRecord>> {
    const rows = updatedRows<AttemptRow>(
      await manager.query(
        `UPDATE webhook_delivery_attempt a
            SET duration_ms = u.duration_ms, status_code = u.status_code, success = u.success,
                error = u.error, response_excerpt = u.response_excerpt,
                response_headers = u.response_headers::json, finished_at = now()
           FROM unnest($1::bigint[], $2::float8[], $3::int[], $4::bool[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
                AS u(id, duration_ms, status_code, success, error, response_excerpt, delivery_created_at, response_headers)
          WHERE a.id = u.id AND a.delivery_created_at = u.delivery_created_at
            -- The same keys as arrays: the planner then reads only the batch's partitions
            -- (usually one), each by its primary key, instead of joining every partition.
            AND a.id = ANY($1::bigint[]) AND a.delivery_created_at = ANY($7::timestamptz[])
            AND num_nulls(a.finished_at) = 1
      RETURNING ${ATTEMPT_COLUMNS}`,
        [
          attempts.map((a) => a.id),
          attempts.map((a) => a.result.durationMs),
          attempts.map((a) => a.result.statusCode),
          attempts.map((a) => a.result.success),
          attempts.map((a) => a.result.error),
          attempts.map((a) => a.result.responseExcerpt),
          attempts.map((a) => a.deliveryCreatedAt),
          attempts.map((a) =>
            a.result.responseHeaders ? JSON.stringify(a.result.responseHeaders) : null,
          ),
        ],
      ),
    );
    const finished = new Map(rows.map((row) => [Number(row.id), toAttemptRecord(row)]));
    await this.moveDeliveriesOn(
      manager,
      attempts
        .filter((a) => a.deliveryId !== null && finished.has(a.id))
        .map((a) => ({ deliveryId: a.deliveryId!, next: a.next })),
    );
    return finished;
  }

  /**
   * Closes attempts whose process stopped between sending and recording (killed, or cut off
   * from PostgreSQL for longer than it waits): failed, `durationMs` long, outcome unknown.
   * Their deliveries count the attempt, their schedules stay as they were.
   * @param scope the deliveries whose unfinished attempts to close, or null for any attempt.
   * @param olderThanMs only attempts begun at least this long ago (a live one is never older).
   * @returns what the health counters must add.
   */
  async closeUnfinished(
    manager: EntityManager,
    scope: number[] | null,
    olderThanMs: number,
    durationMs: number,
    limit: number,
  ): Promise<ClosedAttempt[]> {
    const rows = updatedRows<{
      endpoint_id: number;
      delivery_id: string | null;
      attempted_at: Date;
    }>(
      await manager.query(
        `UPDATE webhook_delivery_attempt a
            SET finished_at = now(), success = false, duration_ms = $3, error = $4
          WHERE a.id IN (
                SELECT id FROM webhook_delivery_attempt
                 WHERE finished_at IS NULL
                   AND attempted_at < now() - make_interval(secs => $2::double precision / 1000)
                   AND ($1::bigint[] IS NULL OR delivery_id = ANY($1::bigint[]))
                 ORDER BY attempted_at
                 LIMIT $5
                   FOR UPDATE SKIP LOCKED)
      RETURNING a.endpoint_id, a.delivery_id, a.attempted_at`,
        [scope, olderThanMs, durationMs, UNKNOWN_OUTCOME, limit],
      ),
    );
    await this.moveDeliveriesOn(
      manager,
      rows
        .filter((row) => row.delivery_id !== null)
        .map((row) => ({ deliveryId: Number(row.delivery_id), next: null })),
    );
    return rows.map((row) => ({
      endpointId: row.endpoint_id,
      deliveryId: row.delivery_id === null ? null : Number(row.delivery_id),
      attemptedAt: row.attempted_at,
      durationMs,
      success: false,
    }));
  }

  /** Counts one more attempt on each delivery and applies its next state (null: unchanged). */
  private async moveDeliveriesOn(
    manager: EntityManager,
    moves: Array<{ deliveryId: number; next: NewAttempt['next'] }>,
  ): Promise<void> {
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
   * An endpoint's deliveries of the last `days` UTC days (today, by PostgreSQL's clock, and the
   * `days - 1` before it), counted by day of `created_at` and by status
   * (docs/dashboard.md#delivery-ledger): newest first, one row per day, zeros for a day without
   * deliveries. `skipped` counts the `skipped` and the `dropped` deliveries; `throttled`, the
   * pending ones put back by the endpoint's throttle and not attempted since (`throttled_until`
   * at or after `next_attempt_at`: a failed attempt moves `next_attempt_at` past it). The
   * deliveries are read from one range of `idx_webhook_delivery_endpoint_id_created_at` (endpoint, time).
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
              COALESCE(c.skipped, 0) AS skipped
         FROM bounds b
        CROSS JOIN LATERAL generate_series(b.first_day, b.today, interval '1 day') AS s(day)
         LEFT JOIN counts c ON c.day = s.day::date
        ORDER BY s.day DESC`,
      [endpointId, days],
    );
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

  /**
   * A page of an endpoint's finished attempts, newest first by (`attempted_at`, `id`), keyset
   * paged (docs/dashboard.md#delivery-log). Each success value is read as its own branch, in the
   * log's order, from `idx_webhook_delivery_attempt_log` (endpoint, success, time, id) or, with an
   * event type, `idx_webhook_delivery_attempt_log_event_type` (endpoint, type, success, time,
   * id); without an outcome the two branches are merged. Either way every branch is one index
   * range read backwards and stopped after `limit` rows: the cost does not grow with the log's
   * size, the page's depth or how rare the filtered rows are.
   */
  async findAttempts(endpointId: number, filter: AttemptLogFilter): Promise<LoggedAttempt[]> {
    const params: unknown[] = [endpointId];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['a.endpoint_id = $1', 'a.finished_at IS NOT NULL'];
    if (filter.eventType !== undefined) where.push(`a.event_type = ${param(filter.eventType)}`);
    if (filter.from) where.push(`a.attempted_at >= ${param(filter.from)}::timestamptz`);
    if (filter.to) where.push(`a.attempted_at < ${param(filter.to)}::timestamptz`);
    if (filter.after) {
      const at = timestampFromMicroseconds(param(filter.after.attemptedAtUs));
      where.push(`(a.attempted_at, a.id) < (${at}, ${param(filter.after.id)}::bigint)`);
    }
    const limit = param(filter.limit);
    const branch = (success: boolean) =>
      `SELECT ${ATTEMPT_COLUMNS}, ${microsecondsOf('a.attempted_at')} AS attempted_at_us
         FROM webhook_delivery_attempt a
        WHERE ${[...where, `a.success = ${success}`].join(' AND ')}
        ORDER BY a.attempted_at DESC, a.id DESC
        LIMIT ${limit}`;
    const sql =
      filter.success === undefined
        ? `SELECT * FROM ((${branch(true)}) UNION ALL (${branch(false)})) AS log
            ORDER BY attempted_at DESC, id DESC
            LIMIT ${limit}`
        : branch(filter.success);
    const rows: Array<AttemptRow & { attempted_at_us: string }> = await this.dataSource.query(
      sql,
      params,
    );
    return rows.map((row) => ({
      ...toAttemptRecord(row),
      position: { attemptedAtUs: row.attempted_at_us, id: Number(row.id) },
    }));
  }

  /**
   * A finished attempt with its request as recorded (docs/dashboard.md#routes), or null when
   * there is no such attempt or it is still in flight.
   */
  async findAttemptRequest(attemptId: number): Promise<AttemptRequestRecord | null> {
    const rows: Array<
      AttemptRow &
        Pick<
          AttemptRequestRecord,
          'request_url' | 'request_headers' | 'request_body' | 'response_headers'
        > & {
          delivery_status: DeliveryStatus | null;
          delivery_attempt_count: number | null;
          delivery_next_attempt_at: Date | null;
        }
    > = await this.dataSource.query(
      `SELECT ${ATTEMPT_COLUMNS}, a.request_url, a.request_headers, a.response_headers,
              COALESCE(a.request_body, e.body) AS request_body,
              d.status AS delivery_status, d.attempt_count AS delivery_attempt_count,
              CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS delivery_next_attempt_at
         FROM webhook_delivery_attempt a
         LEFT JOIN webhook_delivery d ON d.id = a.delivery_id
         LEFT JOIN webhook_event e ON e.id = d.event_id
        WHERE a.id = $1 AND a.finished_at IS NOT NULL`,
      [attemptId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      ...toAttemptRecord(row),
      request_url: row.request_url,
      request_headers: row.request_headers,
      request_body: row.request_body,
      response_headers: row.response_headers,
      delivery:
        row.delivery_status === null
          ? null
          : {
              status: row.delivery_status,
              attempt_count: Number(row.delivery_attempt_count),
              next_attempt_at: row.delivery_next_attempt_at,
            },
    };
  }
}
