import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-endpoint rollups of delivery attempts by minute, hour and day
 * (docs/delivery-analytics.md#rollups), and their backfill from the attempts already
 * recorded: counts by outcome and failure class, summed durations and latency histograms
 * (bucket k ≥ 1 holds [0.1·1.1^(k−1), 0.1·1.1^k) ms, the last one, 240, everything above).
 * End-to-end lag is not backfilled: which attempt was a delivery's first success is not
 * recorded. The backfill reads every finished attempt once, under the migration's lock.
 */
export class DeliveryRollups1795820000000 implements MigrationInterface {
  name = 'DeliveryRollups1795820000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "endpoint_delivery_rollup" (
                "endpoint_id" integer NOT NULL,
                "period" character varying(6) NOT NULL,
                "bucket_start" TIMESTAMP WITH TIME ZONE NOT NULL,
                "attempts" integer NOT NULL,
                "successes" integer NOT NULL,
                "timeouts" integer NOT NULL,
                "connection_errors" integer NOT NULL,
                "redirects" integer NOT NULL,
                "client_errors" integer NOT NULL,
                "server_errors" integer NOT NULL,
                "other_failures" integer NOT NULL,
                "duration_sum_ms" double precision NOT NULL,
                "latency" jsonb NOT NULL,
                "first_successes" integer NOT NULL,
                "lag" jsonb NOT NULL,
                CONSTRAINT "PK_db74df4b0b90efbc804df138389" PRIMARY KEY ("endpoint_id", "period", "bucket_start")
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "endpoint_delivery_rollup"
            ADD CONSTRAINT "fk_endpoint_delivery_rollup_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            WITH attempt AS (
                SELECT endpoint_id, attempted_at, duration_ms, success,
                       CASE WHEN duration_ms < 0.1 THEN 0
                            ELSE least(240, 1 + floor(ln(duration_ms / 0.1) / ln(1.1)))::int END AS bucket,
                       CASE WHEN success THEN NULL
                            WHEN status_code BETWEEN 300 AND 399 THEN 'redirect'
                            WHEN status_code BETWEEN 400 AND 499 THEN 'client_error'
                            WHEN status_code BETWEEN 500 AND 599 THEN 'server_error'
                            WHEN status_code IS NOT NULL THEN 'other'
                            WHEN error LIKE 'timed out%' THEN 'timeout'
                            WHEN error LIKE 'outcome unknown%' OR error LIKE 'could not sign%' THEN 'other'
                            ELSE 'connection_error' END AS failure
                  FROM webhook_delivery_attempt
                 WHERE finished_at IS NOT NULL),
            periodic AS (
                SELECT a.*, p.period,
                       date_trunc(p.period, a.attempted_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket_start
                  FROM attempt a CROSS JOIN (VALUES ('minute'), ('hour'), ('day')) AS p(period)),
            histogram AS (
                SELECT endpoint_id, period, bucket_start, jsonb_object_agg(bucket::text, n) AS latency
                  FROM (SELECT endpoint_id, period, bucket_start, bucket, count(*)::int AS n
                          FROM periodic GROUP BY endpoint_id, period, bucket_start, bucket) AS counted
                 GROUP BY endpoint_id, period, bucket_start)
            INSERT INTO endpoint_delivery_rollup
                   (endpoint_id, period, bucket_start, attempts, successes, timeouts, connection_errors,
                    redirects, client_errors, server_errors, other_failures, duration_sum_ms, latency,
                    first_successes, lag)
            SELECT p.endpoint_id, p.period, p.bucket_start, count(*)::int,
                   (count(*) FILTER (WHERE p.success))::int,
                   (count(*) FILTER (WHERE p.failure = 'timeout'))::int,
                   (count(*) FILTER (WHERE p.failure = 'connection_error'))::int,
                   (count(*) FILTER (WHERE p.failure = 'redirect'))::int,
                   (count(*) FILTER (WHERE p.failure = 'client_error'))::int,
                   (count(*) FILTER (WHERE p.failure = 'server_error'))::int,
                   (count(*) FILTER (WHERE p.failure = 'other'))::int,
                   sum(p.duration_ms), h.latency, 0, '{}'::jsonb
              FROM periodic p
              JOIN histogram h USING (endpoint_id, period, bucket_start)
             GROUP BY p.endpoint_id, p.period, p.bucket_start, h.latency
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "endpoint_delivery_rollup"`);
  }
}
