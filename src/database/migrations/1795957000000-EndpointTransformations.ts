import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-endpoint transformations (docs/webhooks.md#transformations):
 * - `webhook_transformation_version`: every saved version of an endpoint's code, kept (the
 *   history, its differences, restoring one); primary key (`endpoint_id`, `version`), which
 *   also serves the foreign key's cascade.
 * - `webhook_endpoint.transformation` and `transformation_version`: the code in force and its
 *   version, read with the endpoint by each attempt (no join on the hot path); both null when
 *   the endpoint has none.
 * - `webhook_delivery_attempt.transformation_version`: the version that shaped the attempt, and
 *   `request_method`: the method a transformation chose when not POST (null: POST).
 * - `webhook_delivery.status_reason`: why a delivery ended as it did when its status alone does
 *   not say (`transformation`: skipped because the code returned null; `transformation_error`:
 *   failed on the code, not retried on the schedule), with a partial index for the recovery of
 *   those failures (scope `transformation_errors`).
 * Every new column is nullable without a default: adding it rewrites no row.
 */
export class EndpointTransformations1795957000000 implements MigrationInterface {
  name = 'EndpointTransformations1795957000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_transformation_version" (
         "endpoint_id" integer NOT NULL,
         "version" integer NOT NULL,
         "code" text NOT NULL,
         "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         "created_by" character varying(320),
         "restored_from" integer,
         CONSTRAINT "pk_webhook_transformation_version" PRIMARY KEY ("endpoint_id", "version"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_transformation_version" ADD CONSTRAINT "fk_webhook_transformation_version_endpoint"
         FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD "transformation" text`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD "transformation_version" integer`);
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" ADD "transformation_version" integer`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" ADD "request_method" character varying(8)`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery" ADD "status_reason" character varying(24)`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_delivery_transformation_failed_id" ON "webhook_delivery" ("endpoint_id", "id")
         WHERE status = 'failed' AND status_reason = 'transformation_error'`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" DROP CONSTRAINT "chk_delivery_recovery_scope"`,
    );
    // Longer names fit: a varchar widened keeps its rows as they are (no rewrite).
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" ALTER COLUMN "scope" TYPE character varying(24)`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" ADD CONSTRAINT "chk_delivery_recovery_scope"
         CHECK ("scope" IN ('failed', 'missed', 'transformation_errors'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DELETE FROM "delivery_recovery" WHERE "scope" = 'transformation_errors'`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" DROP CONSTRAINT "chk_delivery_recovery_scope"`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" ALTER COLUMN "scope" TYPE character varying(16)`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" ADD CONSTRAINT "chk_delivery_recovery_scope" CHECK ("scope" IN ('failed', 'missed'))`,
    );
    await queryRunner.query(`DROP INDEX "idx_webhook_delivery_transformation_failed_id"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery" DROP COLUMN "status_reason"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery_attempt" DROP COLUMN "request_method"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" DROP COLUMN "transformation_version"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "transformation_version"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "transformation"`);
    await queryRunner.query(`DROP TABLE "webhook_transformation_version"`);
  }
}
