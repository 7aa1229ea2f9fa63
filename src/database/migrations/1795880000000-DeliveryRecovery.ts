import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk recovery of an endpoint's failed deliveries (docs/webhooks.md#bulk-recovery): the
 * `delivery_recovery` table, at most one `running` row per endpoint (a unique partial index),
 * and two partial indexes over failed deliveries: (endpoint, created_at) counts an endpoint's
 * failures since a time, (endpoint, id) walks them batch by batch. Failed deliveries are few
 * next to the others, so both stay small.
 */
export class DeliveryRecovery1795880000000 implements MigrationInterface {
  name = 'DeliveryRecovery1795880000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "delivery_recovery" (
                "id" SERIAL NOT NULL,
                "endpoint_id" integer NOT NULL,
                "since" TIMESTAMP WITH TIME ZONE NOT NULL,
                "status" character varying(16) NOT NULL,
                "total" integer NOT NULL,
                "processed" integer NOT NULL DEFAULT '0',
                "last_delivery_id" bigint NOT NULL,
                "cursor_delivery_id" bigint NOT NULL,
                "batch_delivery_ids" bigint array NOT NULL DEFAULT '{}',
                "batch_queued_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "finished_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_056ae294d60a9c66911091b3f06" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_delivery_recovery_endpoint" ON "delivery_recovery" ("endpoint_id", "id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_delivery_recovery_running" ON "delivery_recovery" ("endpoint_id")
            WHERE status = 'running'
        `);
    await queryRunner.query(`
            ALTER TABLE "delivery_recovery"
            ADD CONSTRAINT "fk_delivery_recovery_endpoint" FOREIGN KEY ("endpoint_id")
            REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_failed_created" ON "webhook_delivery" ("endpoint_id", "created_at")
            WHERE status = 'failed'
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_failed_id" ON "webhook_delivery" ("endpoint_id", "id")
            WHERE status = 'failed'
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_failed_id"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_failed_created"`);
    await queryRunner.query(`DROP TABLE "delivery_recovery"`);
  }
}
