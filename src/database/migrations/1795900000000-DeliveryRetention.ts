import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Days of partitions made before today (the default `DELIVERY_RETENTION_DAYS`) and after it. */
const DAYS_BEFORE = 30;
const DAYS_AHEAD = 14;
const DAY_MS = 86_400_000;

function utcDay(ms: number): Date {
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS);
}

function partitionName(day: Date): string {
  return `webhook_delivery_attempt_p${day.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

const COLUMNS = `"id", "endpoint_id", "delivery_id", "message_id", "attempted_at", "duration_ms",
  "status_code", "success", "error", "response_excerpt", "finished_at", "event_type", "request_url",
  "request_headers", "request_body", "attempt_number"`;

/** Drops the attempts' indexes (not the primary key): a new table takes their names. */
async function dropIndexes(queryRunner: QueryRunner): Promise<void> {
  for (const index of [
    'idx_webhook_delivery_attempt_log',
    'idx_webhook_delivery_attempt_log_event_type',
    'idx_webhook_delivery_attempt_unfinished',
    'uq_webhook_delivery_attempt_number',
  ]) {
    await queryRunner.query(`DROP INDEX "public"."${index}"`);
  }
}

/**
 * The attempts' indexes and foreign keys: the unique attempt number over `uniqueColumns`, and
 * the key to the delivery only when `deliveryKey` (the partitioned table has none).
 */
async function createIndexesAndKeys(
  queryRunner: QueryRunner,
  uniqueColumns: string,
  deliveryKey: boolean,
): Promise<void> {
  for (const statement of [
    `CREATE INDEX "idx_webhook_delivery_attempt_log" ON "webhook_delivery_attempt" ("endpoint_id", "success", "attempted_at", "id")`,
    `CREATE INDEX "idx_webhook_delivery_attempt_log_event_type" ON "webhook_delivery_attempt" ("endpoint_id", "event_type", "success", "attempted_at", "id") WHERE finished_at IS NOT NULL`,
    `CREATE INDEX "idx_webhook_delivery_attempt_unfinished" ON "webhook_delivery_attempt" ("attempted_at") WHERE finished_at IS NULL`,
    `CREATE UNIQUE INDEX "uq_webhook_delivery_attempt_number" ON "webhook_delivery_attempt" (${uniqueColumns})`,
    `ALTER TABLE "webhook_delivery_attempt" ADD CONSTRAINT "fk_webhook_delivery_attempt_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    ...(deliveryKey
      ? [
          `ALTER TABLE "webhook_delivery_attempt" ADD CONSTRAINT "fk_webhook_delivery_attempt_delivery" FOREIGN KEY ("delivery_id") REFERENCES "webhook_delivery"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
        ]
      : []),
  ]) {
    await queryRunner.query(statement);
  }
}

/**
 * Retention (docs/operations.md#retention). `webhook_delivery_attempt` becomes a table
 * partitioned by day (UTC) of `delivery_created_at`: its delivery's creation time, or the
 * attempt's own for pings and test messages. All attempts of a delivery therefore live in one
 * partition, which the service drops whole once the delivery is older than
 * `DELIVERY_RETENTION_DAYS`. The partition key joins the primary key and the unique attempt
 * number, as PostgreSQL requires of unique indexes on a partitioned table; since every
 * attempt of a delivery has the same key, the attempt number is still unique per delivery.
 *
 * The migration makes a partition for each day from 30 days ago to 14 days ahead (the service
 * keeps making them ahead), plus one partition `webhook_delivery_attempt_history` below those
 * for older attempts when there are any, then copies the attempts and drops the old table. It
 * holds the attempts' table locked while it copies: about 10 s per million attempts.
 *
 * The partitioned table has no foreign key to `webhook_delivery`: with one, deleting each
 * delivery would look for its attempts in every partition (0.3 s per 1,000 events deleted, in
 * the retention benchmark). A delivery's attempts live in the partition of the delivery's day
 * and go with it; the key to the endpoint stays.
 *
 * It also adds the indexes that retention deletes by: events by `created_at`, and the rollups
 * by (`period`, `bucket_start`).
 */
export class DeliveryRetention1795900000000 implements MigrationInterface {
  name = 'DeliveryRetention1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" RENAME TO "webhook_delivery_attempt_unpartitioned"`,
    );
    await dropIndexes(queryRunner);
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt_unpartitioned" DROP CONSTRAINT "PK_e6efad829bd07e78a18fd0ad5d5"`,
    );
    await queryRunner.query(`
      CREATE TABLE "webhook_delivery_attempt" (
        "id" bigint NOT NULL DEFAULT nextval('webhook_delivery_attempt_id_seq'),
        "endpoint_id" integer NOT NULL,
        "delivery_id" bigint,
        "message_id" character varying(64) NOT NULL,
        "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "duration_ms" double precision NOT NULL,
        "status_code" integer,
        "success" boolean NOT NULL,
        "error" character varying(500),
        "response_excerpt" character varying(1024),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        "event_type" character varying(64),
        "request_url" character varying(2048),
        "request_headers" json,
        "request_body" text,
        "attempt_number" integer,
        "delivery_created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_webhook_delivery_attempt" PRIMARY KEY ("id", "delivery_created_at")
      ) PARTITION BY RANGE ("delivery_created_at")`);
    await queryRunner.query(
      `ALTER SEQUENCE "webhook_delivery_attempt_id_seq" OWNED BY "webhook_delivery_attempt"."id"`,
    );
    await createIndexesAndKeys(
      queryRunner,
      '"delivery_id", "attempt_number", "delivery_created_at"',
      false,
    );

    const today = utcDay(Date.now()).getTime();
    const first = new Date(today - DAYS_BEFORE * DAY_MS);
    const [{ older }]: Array<{ older: boolean }> = await queryRunner.query(
      `SELECT EXISTS (
         SELECT 1 FROM "webhook_delivery_attempt_unpartitioned" a
           LEFT JOIN "webhook_delivery" d ON d.id = a.delivery_id
          WHERE COALESCE(d.created_at, a.attempted_at) < $1) AS older`,
      [first],
    );
    if (older) {
      await queryRunner.query(
        `CREATE TABLE "webhook_delivery_attempt_history" PARTITION OF "webhook_delivery_attempt"
           FOR VALUES FROM (MINVALUE) TO ('${first.toISOString()}')`,
      );
    }
    for (let day = first.getTime(); day <= today + DAYS_AHEAD * DAY_MS; day += DAY_MS) {
      const from = new Date(day);
      await queryRunner.query(
        `CREATE TABLE "${partitionName(from)}" PARTITION OF "webhook_delivery_attempt"
           FOR VALUES FROM ('${from.toISOString()}') TO ('${new Date(day + DAY_MS).toISOString()}')`,
      );
    }
    await queryRunner.query(
      `INSERT INTO "webhook_delivery_attempt" (${COLUMNS}, "delivery_created_at")
       SELECT ${COLUMNS.split(',')
         .map((column) => `a.${column.trim()}`)
         .join(', ')}, COALESCE(d.created_at, a.attempted_at)
         FROM "webhook_delivery_attempt_unpartitioned" a
         LEFT JOIN "webhook_delivery" d ON d.id = a.delivery_id`,
    );
    await queryRunner.query(`DROP TABLE "webhook_delivery_attempt_unpartitioned"`);

    await queryRunner.query(
      `CREATE INDEX "idx_webhook_event_created_at" ON "webhook_event" ("created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_endpoint_delivery_rollup_period_bucket_start" ON "endpoint_delivery_rollup" ("period", "bucket_start")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP INDEX "public"."idx_endpoint_delivery_rollup_period_bucket_start"`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_event_created_at"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" RENAME TO "webhook_delivery_attempt_partitioned"`,
    );
    await dropIndexes(queryRunner);
    await queryRunner.query(`
      CREATE TABLE "webhook_delivery_attempt" (LIKE "webhook_delivery_attempt_partitioned" INCLUDING DEFAULTS)`);
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" DROP COLUMN "delivery_created_at"`,
    );
    await queryRunner.query(
      `INSERT INTO "webhook_delivery_attempt" (${COLUMNS}) SELECT ${COLUMNS} FROM "webhook_delivery_attempt_partitioned"`,
    );
    await queryRunner.query(
      `ALTER SEQUENCE "webhook_delivery_attempt_id_seq" OWNED BY "webhook_delivery_attempt"."id"`,
    );
    await queryRunner.query(`DROP TABLE "webhook_delivery_attempt_partitioned"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" ADD CONSTRAINT "PK_e6efad829bd07e78a18fd0ad5d5" PRIMARY KEY ("id")`,
    );
    await createIndexesAndKeys(queryRunner, '"delivery_id", "attempt_number"', true);
  }
}
