import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replaying what an endpoint missed while it was disabled (docs/webhooks.md#replaying-missed-deliveries):
 * - `webhook_endpoint.last_disabled_at` and `last_disabled_reason` keep the `disabled_at` and
 *   `disabled_reason` an endpoint had when it is enabled again (enabling clears those two), so
 *   the dashboard can offer to replay what it missed since then. Null until an endpoint is
 *   enabled again after this migration: earlier periods were not recorded.
 * - `delivery_recovery.scope`: `failed` (a bulk recovery, as before: every existing recovery)
 *   or `missed` (failed, skipped and dropped deliveries).
 * - Two partial indexes over the deliveries a `missed` recovery covers, like the two over failed
 *   deliveries: (endpoint, created_at) counts them since a time, (endpoint, id) walks them.
 */
export class MissedDeliveryReplay1795925000000 implements MigrationInterface {
  name = 'MissedDeliveryReplay1795925000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "last_disabled_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "last_disabled_reason" character varying(16)`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_last_disabled_reason" CHECK ("last_disabled_reason" IN ('manual', 'gone', 'auto'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" ADD "scope" character varying(16) NOT NULL DEFAULT 'failed'`,
    );
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" ADD CONSTRAINT "chk_delivery_recovery_scope" CHECK ("scope" IN ('failed', 'missed'))`,
    );
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_missed_created" ON "webhook_delivery" ("endpoint_id", "created_at")
            WHERE status IN ('failed', 'skipped', 'dropped')
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_missed_id" ON "webhook_delivery" ("endpoint_id", "id")
            WHERE status IN ('failed', 'skipped', 'dropped')
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_missed_id"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_missed_created"`);
    await queryRunner.query(
      `ALTER TABLE "delivery_recovery" DROP CONSTRAINT "chk_delivery_recovery_scope"`,
    );
    await queryRunner.query(`ALTER TABLE "delivery_recovery" DROP COLUMN "scope"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_last_disabled_reason"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "last_disabled_reason"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "last_disabled_at"`);
  }
}
