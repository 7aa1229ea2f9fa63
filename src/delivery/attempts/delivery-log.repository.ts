import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DeliveryStatus } from '../deliveries';
import type {
  AttemptLogFilter,
  AttemptRecord,
  AttemptRequestRecord,
  LoggedAttempt,
} from './attempt-records';

/**
 * The columns of an attempt as {@link AttemptRecord}, for the attempt table aliased `a`. The
 * stored type of a ping is `ping` (so the log's index serves that filter by equality); the
 * record shows null, as `delivery list` always has (docs/cli.md#commands).
 */
export const ATTEMPT_COLUMNS = `a.id, a.delivery_id, a.endpoint_id, a.message_id AS webhook_id,
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
export function updatedRows<T>(result: unknown): T[] {
  return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as T[];
}

export type AttemptRow = AttemptRecord & { id: string; delivery_id: string | null };

export function toAttemptRecord(row: AttemptRow): AttemptRecord {
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
 * The delivery log's reads (docs/dashboard.md#delivery-log): an endpoint's finished attempts,
 * and one attempt with its request, its delivery's state and its event's body. A read model:
 * it joins `webhook_delivery` and `webhook_event` (the outbox's tables) and writes nothing.
 */
@Injectable()
export class DeliveryLogRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
          | 'request_url'
          | 'request_headers'
          | 'request_body'
          | 'response_headers'
          | 'request_method'
          | 'transformation_version'
        > & {
          delivery_status: DeliveryStatus | null;
          delivery_attempt_count: number | null;
          delivery_next_attempt_at: Date | null;
        }
    > = await this.dataSource.query(
      `SELECT ${ATTEMPT_COLUMNS}, a.request_url, a.request_headers, a.response_headers,
              COALESCE(a.request_body, e.body) AS request_body,
              COALESCE(a.request_method, 'POST') AS request_method, a.transformation_version,
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
      request_method: row.request_method,
      transformation_version: row.transformation_version,
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
