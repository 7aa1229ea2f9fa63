import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  UNKNOWN_OUTCOME,
  type AttemptKey,
  type AttemptRecord,
  type AttemptStart,
  type ClosedAttempt,
  type FinishedAttempt,
} from './attempt-records';
import {
  ATTEMPT_COLUMNS,
  toAttemptRecord,
  updatedRows,
  type AttemptRow,
} from './delivery-log.repository';

/**
 * The writes of `webhook_delivery_attempt` (docs/webhooks.md): attempts begun before a byte
 * is sent, finished with their results, closed as of unknown outcome. Reads
 * `webhook_delivery.created_at` in the begin's INSERT, the attempt's partition key
 * (docs/operations.md#retention).
 */
@Injectable()
export class AttemptsRepository {
  /**
   * Writes attempts that are about to be sent (`finished_at` NULL), before any byte leaves,
   * so a send whose result is lost (a killed worker, an outage) is still in the log. A
   * `scheduled` start whose attempt its delivery already has (another job read the same state
   * of the delivery and began it first) is not written, nor one of a delivery an erasure
   * cancelled (docs/privacy.md#attempts-in-flight): its request never leaves.
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
      // One JSON parameter, not an array per column: `pg` escapes each element of a text
      // array in JavaScript (each body and header set twice over), JSON.stringify natively.
      `INSERT INTO webhook_delivery_attempt (endpoint_id, delivery_id, message_id, event_type, attempted_at,
                                             duration_ms, success, request_url, request_headers, request_body,
                                             attempt_number, delivery_created_at, request_method,
                                             transformation_version)
       SELECT a.endpoint_id, a.delivery_id, a.message_id, a.event_type, a.attempted_at,
              0, false, a.request_url, a.request_headers, a.request_body, a.attempt_number,
              date_trunc('milliseconds', COALESCE(d.created_at, a.attempted_at)),
              a.request_method, a.transformation_version
         FROM ROWS FROM (json_to_recordset($1::json)
                AS (endpoint_id int, delivery_id bigint, message_id text, event_type text,
                    attempted_at timestamptz, request_url text, request_headers json,
                    request_body text, attempt_number int, request_method text,
                    transformation_version int))
              WITH ORDINALITY
              AS a(endpoint_id, delivery_id, message_id, event_type, attempted_at, request_url, request_headers, request_body, attempt_number, request_method, transformation_version, ord)
         -- Shares the delivery's lock: an erasure that cancelled it first is seen here, and
         -- one that comes after waits for this attempt's row (docs/privacy.md#attempts-in-flight).
         LEFT JOIN LATERAL (SELECT wd.created_at, wd.status_reason FROM webhook_delivery wd
                             WHERE wd.id = a.delivery_id FOR SHARE) d ON true
        WHERE a.attempt_number IS NULL OR d.status_reason IS DISTINCT FROM 'erased'
        ORDER BY a.ord
           ON CONFLICT (delivery_id, attempt_number, delivery_created_at) DO NOTHING
       RETURNING id, delivery_id, attempt_number, delivery_created_at`,
      [
        JSON.stringify(
          written.map((a) => ({
            endpoint_id: a.endpointId,
            delivery_id: a.deliveryId,
            message_id: a.messageId,
            event_type: a.eventType,
            attempted_at: a.attemptedAt,
            request_url: a.request.url,
            request_headers: a.request.headers,
            request_body: a.request.body,
            attempt_number: a.scheduled ? a.scheduled.attemptCount + 1 : null,
            // Absent (null) for POST, the method of every request a transformation did not change.
            ...(a.request.method && a.request.method !== 'POST'
              ? { request_method: a.request.method }
              : {}),
            ...(a.transformationVersion ? { transformation_version: a.transformationVersion } : {}),
          })),
        ),
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
   * Records the results of begun attempts, in the caller's transaction: one UPDATE whatever
   * the number of attempts (the caller moves their deliveries on in the same transaction). An attempt already
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
                error = u.error,
                -- An attempt an erasure redacted while it was in flight keeps no answer either.
                response_excerpt = CASE WHEN a.request_url IS NULL AND a.request_body IS NULL
                                        THEN NULL ELSE u.response_excerpt END,
                response_headers = CASE WHEN a.request_url IS NULL AND a.request_body IS NULL
                                        THEN NULL ELSE u.response_headers::json END,
                finished_at = now()
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
    return new Map(rows.map((row) => [Number(row.id), toAttemptRecord(row)]));
  }

  /**
   * Redacts the stored requests and answers of `deliveryIds`' attempts, in the caller's
   * transaction (an erasure, docs/privacy.md#erasure): request body, URL and headers, response
   * excerpt and headers become null. The deliveries' `created_at` (the partition key) leaves
   * the planner only their own daily partitions (planning every partition cost more than the
   * update); each is read through `idx_webhook_delivery_attempt_delivery_id`.
   * @param deliveries each delivery's id and its attempts' `delivery_created_at` (the delivery's
   *   `created_at` to the millisecond), as text.
   * @returns how many attempts.
   */
  async redactOfDeliveries(
    manager: EntityManager,
    deliveries: ReadonlyArray<{ id: number; createdAt: string }>,
  ): Promise<number> {
    const [, count]: [unknown, number] = await manager.query(
      `UPDATE webhook_delivery_attempt
          SET request_body = NULL, request_url = NULL, request_headers = NULL,
              response_excerpt = NULL, response_headers = NULL
        WHERE delivery_id = ANY($1::bigint[])
          AND delivery_created_at = ANY($2::timestamptz[])`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.createdAt)],
    );
    return count;
  }

  /**
   * Closes attempts whose process stopped between sending and recording (killed, or cut off
   * from PostgreSQL for longer than it waits): failed, `durationMs` long, outcome unknown.
   * Their deliveries must count the attempt, their schedules staying as they were: the caller
   * moves them on in the same transaction.
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
    return rows.map((row) => ({
      endpointId: row.endpoint_id,
      deliveryId: row.delivery_id === null ? null : Number(row.delivery_id),
      attemptedAt: row.attempted_at,
      durationMs,
      success: false,
    }));
  }
}
