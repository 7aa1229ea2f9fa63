import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's delivery log (docs/dashboard.md#delivery-log) and attempt detail:
 *
 * - `event_type` on each attempt, the `type` of the body sent (the event's, or `ping`), copied
 *   at insert so the log filters by type without joining `webhook_delivery` and
 *   `webhook_event`; existing attempts are backfilled from their events, pings with `ping`.
 * - the request as sent: `request_url`, `request_headers` (signatures truncated) and, for
 *   attempts with no event row (pings, test events), `request_body`. NULL for older attempts.
 * - two indexes that serve every filter combination of the log with one bounded index range per
 *   success value: (endpoint, success, time, id), which also serves the endpoint foreign key and
 *   replaces (endpoint, id), and (endpoint, type, success, time, id) over finished attempts.
 *
 * The backfill and the index builds run under the migration's lock, blocking attempt writes for
 * their duration (seconds per million attempts).
 */
export class DeliveryLog1795500000001 implements MigrationInterface {
  name = 'DeliveryLog1795500000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt"
                ADD "event_type" character varying(64),
                ADD "request_url" character varying(2048),
                ADD "request_headers" json,
                ADD "request_body" text
        `);
    await queryRunner.query(`
            UPDATE "webhook_delivery_attempt" a
               SET "event_type" = e."type"
              FROM "webhook_delivery" d
              JOIN "webhook_event" e ON e."id" = d."event_id"
             WHERE d."id" = a."delivery_id"
        `);
    await queryRunner.query(`
            UPDATE "webhook_delivery_attempt" SET "event_type" = 'ping' WHERE "delivery_id" IS NULL
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_attempt_log" ON "webhook_delivery_attempt" ("endpoint_id", "success", "attempted_at", "id")
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_attempt_log_event_type" ON "webhook_delivery_attempt" ("endpoint_id", "event_type", "success", "attempted_at", "id")
            WHERE finished_at IS NOT NULL
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_delivery_attempt_endpoint_id_id"
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_attempt_endpoint_id_id" ON "webhook_delivery_attempt" ("endpoint_id", "id")
        `);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_attempt_log_event_type"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_attempt_log"`);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt"
                DROP COLUMN "request_body",
                DROP COLUMN "request_headers",
                DROP COLUMN "request_url",
                DROP COLUMN "event_type"
        `);
  }
}
