import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import {
  FAILURE_CLASSES,
  histogramLiteral,
  parseChartLine,
  ROLLUP_PERIODS,
  type FailureClass,
  type RollupIncrement,
  type RollupPeriod,
  type RollupRow,
} from './delivery-rollup';

/** The table's failure-count column of each failure class. */
const FAILURE_COLUMNS: Record<FailureClass, string> = {
  timeout: 'timeouts',
  connection_error: 'connection_errors',
  redirect: 'redirects',
  client_error: 'client_errors',
  server_error: 'server_errors',
  other: 'other_failures',
};

/**
 * The sum of two stored histograms (`integer[]` whose lower bound is the first bucket, see
 * `BucketCounts`), in SQL: bucket by bucket over the union of their ranges.
 */
const histogramSum = (a: string, b: string): string =>
  `CASE WHEN cardinality(${b}) = 0 THEN ${a} WHEN cardinality(${a}) = 0 THEN ${b} ELSE
     (SELECT (format('[%s:%s]=', min(k), max(k))
              || array_agg(coalesce(${a}[k], 0) + coalesce(${b}[k], 0) ORDER BY k)::text)::integer[]
        FROM generate_series(least(array_lower(${a}, 1), array_lower(${b}, 1)),
                             greatest(array_upper(${a}, 1), array_upper(${b}, 1))) AS k) END`;

/** What the failing-endpoint rules read of one endpoint (docs/webhooks.md#failing-endpoints). */
export interface FailureSignals {
  endpointId: number;
  /** Attempts and successes of the last 60 minutes (minute rows). */
  hourAttempts: number;
  hourSuccesses: number;
  /** Successes since the hour after `since` (hour rows); only when `since` was given. */
  successesSince: number;
  /**
   * Whether every attempt of the last 24 hours failed: the hour that began 24 hours before the
   * current one had attempts, and no hour since had a success.
   */
  failingAllDay: boolean;
}

/** The SQL of `endpoint_delivery_rollup` (docs/delivery-analytics.md#rollups). */
@Injectable()
export class DeliveryRollupRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Adds increments to their rows (creating them), in the caller's transaction: one
   * statement for any number. Rows are written in the order given, which {@link rollUp}
   * sorts, so concurrent batches lock them in one order.
   */
  async add(manager: EntityManager, increments: RollupIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const failureColumns = FAILURE_CLASSES.map((c) => FAILURE_COLUMNS[c]);
    await manager.query(
      `INSERT INTO endpoint_delivery_rollup AS r
              (endpoint_id, period, bucket_start, attempts, successes, ${failureColumns.join(', ')},
               duration_sum_ms, latency, first_successes, lag)
       SELECT endpoint_id, period, bucket_start, attempts, successes, ${failureColumns.join(', ')},
              duration_sum_ms, latency::integer[], first_successes, lag::integer[]
         FROM unnest($1::int[], $2::varchar[], $3::timestamptz[], $4::int[], $5::int[],
                     ${failureColumns.map((_, i) => `$${i + 6}::int[]`).join(', ')},
                     $12::float8[], $13::text[], $14::int[], $15::text[])
           AS i(endpoint_id, period, bucket_start, attempts, successes, ${failureColumns.join(', ')},
                duration_sum_ms, latency, first_successes, lag)
       ON CONFLICT (endpoint_id, period, bucket_start) DO UPDATE SET
              attempts = r.attempts + excluded.attempts,
              successes = r.successes + excluded.successes,
              ${failureColumns.map((c) => `${c} = r.${c} + excluded.${c}`).join(',\n              ')},
              duration_sum_ms = r.duration_sum_ms + excluded.duration_sum_ms,
              latency = ${histogramSum('r.latency', 'excluded.latency')},
              first_successes = r.first_successes + excluded.first_successes,
              lag = ${histogramSum('r.lag', 'excluded.lag')}`,
      [
        increments.map((i) => i.endpointId),
        increments.map((i) => i.period),
        increments.map((i) => i.start),
        increments.map((i) => i.attempts),
        increments.map((i) => i.successes),
        ...FAILURE_CLASSES.map((c) => increments.map((i) => i.failures[c])),
        increments.map((i) => i.durationSumMs),
        increments.map((i) => histogramLiteral(i.latency)),
        increments.map((i) => i.firstSuccesses),
        increments.map((i) => histogramLiteral(i.lag)),
      ],
    );
  }

  /**
   * The figures the failing-endpoint rules need, for every endpoint with attempts in the last
   * 24 hours or among `since` (docs/webhooks.md#failing-endpoints). Reads rollups only: at most
   * 60 minute rows and 25 hour rows per endpoint, plus the hour rows since each failing mark.
   * @param since failing endpoints and since when they fail, for `successesSince`.
   */
  async failureSignals(since: Map<number, Date>): Promise<FailureSignals[]> {
    const rows: Array<{
      endpoint_id: number;
      hour_attempts: number;
      hour_successes: number;
      successes_since: number;
      failing_all_day: boolean;
    }> = await this.dataSource.query(
      `WITH now_hour AS (SELECT date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS start),
            marked AS (SELECT * FROM unnest($1::int[], $2::timestamptz[]) AS m(endpoint_id, since)),
            last_hour AS (
              SELECT endpoint_id, sum(attempts)::int AS attempts, sum(successes)::int AS successes
                FROM endpoint_delivery_rollup
               WHERE period = 'minute' AND bucket_start >= now() - interval '1 hour'
               GROUP BY endpoint_id),
            last_day AS (
              SELECT endpoint_id, sum(successes)::int AS successes, min(bucket_start) AS first_hour
                FROM endpoint_delivery_rollup, now_hour
               WHERE period = 'hour' AND bucket_start >= now_hour.start - interval '24 hours'
               GROUP BY endpoint_id),
            since_mark AS (
              SELECT m.endpoint_id, coalesce(sum(r.successes), 0)::int AS successes
                FROM marked m
                LEFT JOIN endpoint_delivery_rollup r
                       ON r.endpoint_id = m.endpoint_id AND r.period = 'hour'
                      AND r.bucket_start >= date_trunc('hour', m.since AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 hour'
               GROUP BY m.endpoint_id)
       SELECT e.endpoint_id,
              coalesce(h.attempts, 0) AS hour_attempts, coalesce(h.successes, 0) AS hour_successes,
              coalesce(s.successes, 0) AS successes_since,
              coalesce(d.successes = 0 AND d.first_hour <= (SELECT start FROM now_hour) - interval '24 hours', false) AS failing_all_day
         FROM (SELECT endpoint_id FROM last_day UNION SELECT endpoint_id FROM last_hour
               UNION SELECT endpoint_id FROM marked) AS e
         LEFT JOIN last_hour h USING (endpoint_id)
         LEFT JOIN last_day d USING (endpoint_id)
         LEFT JOIN since_mark s USING (endpoint_id)
        ORDER BY e.endpoint_id`,
      [[...since.keys()], [...since.values()]],
    );
    return rows.map((row) => ({
      endpointId: row.endpoint_id,
      hourAttempts: row.hour_attempts,
      hourSuccesses: row.hour_successes,
      successesSince: row.successes_since,
      failingAllDay: row.failing_all_day,
    }));
  }

  /**
   * The rows of some endpoints at one granularity with a start in [`from`, `to`), in no
   * particular order. Reads only rollups (a range of the primary key per endpoint):
   * O(endpoints × periods in the window × buckets), whatever the number of attempts.
   */
  async read(
    endpointIds: number[],
    period: RollupPeriod,
    from: Date,
    to: Date,
  ): Promise<RollupRow[]> {
    if (endpointIds.length === 0) return [];
    if (!ROLLUP_PERIODS.includes(period)) throw new Error(`unknown rollup period ${period}`);
    // A prepared statement on the pool, one per period: planning it again on every chart read
    // cost more than running it. The period is written into the statement, not passed, so
    // PostgreSQL's plan cache settles on one generic plan (a range of the index); with the
    // period as a parameter it planned every read again for the rows of one period.
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool;
    // Each row as its chart line (and its summed duration): one stored text PostgreSQL sends
    // as it is, where thirteen columns cost an output function each, and one per histogram
    // bucket.
    const { rows } = await pool.query<[string, number]>({
      name: `endpoint_delivery_rollup_read_${period}`,
      text: `SELECT chart_line, duration_sum_ms FROM endpoint_delivery_rollup
              WHERE endpoint_id = ANY($1::int[]) AND period = '${period}'
                AND bucket_start >= $2 AND bucket_start < $3`,
      values: [endpointIds, from, to],
      rowMode: 'array',
    });
    return rows.map((row) => parseChartLine(row[0], row[1]));
  }

  /**
   * Deletes at most `limit` rows of `periods` whose bucket started more than `keep` before
   * `now` (docs/operations.md#retention).
   * @param session the retention pass's session: the statement runs there.
   * @param keep a PostgreSQL interval, such as `'7 days'`.
   * @returns how many rows it deleted.
   */
  async deleteOlderThan(
    session: EntityManager,
    now: Date,
    periods: readonly string[],
    keep: string,
    limit: number,
  ): Promise<number> {
    const [, count]: [unknown, number] = await session.query(
      `DELETE FROM endpoint_delivery_rollup WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM endpoint_delivery_rollup
          WHERE period = ANY($3::text[]) AND bucket_start < $1::timestamptz - $4::interval
          LIMIT $2))`,
      [now, limit, periods, keep],
    );
    return count;
  }
}
