import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replaying what an endpoint missed while it was disabled (docs/webhooks.md#replaying-missed-deliveries):
 * `webhook_endpoint.last_disabled_at` and `last_disabled_reason` keep the `disabled_at` and
 * `disabled_reason` an endpoint had when it is enabled again (enabling clears those two), so the
 * dashboard can offer to replay what it missed since then. Null until an endpoint is enabled
 * again after this migration: earlier periods were not recorded.
 */
export class MissedDeliveryReplay1795890000000 implements MigrationInterface {
  name = 'MissedDeliveryReplay1795890000000';

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
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_last_disabled_reason"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "last_disabled_reason"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "last_disabled_at"`);
  }
}
