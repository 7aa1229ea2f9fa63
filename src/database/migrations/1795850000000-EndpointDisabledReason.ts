import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why and since when an endpoint is disabled (docs/webhooks.md#disabled-endpoints):
 * `disabled_reason` (`manual`, `gone` for a 410 Gone answer, `auto` reserved) and
 * `disabled_at`, both null exactly while the endpoint is enabled. Endpoints disabled before
 * this migration were disabled by an admin or operator: they become `manual` as of their last
 * change (`updated_at`). The audit log gains the actor `system`, for the service's own changes
 * (an endpoint disabled because it answered 410).
 */
export class EndpointDisabledReason1795850000000 implements MigrationInterface {
  name = 'EndpointDisabledReason1795850000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "disabled_reason" character varying(16)`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "disabled_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `UPDATE "webhook_endpoint" SET "disabled_reason" = 'manual', "disabled_at" = "updated_at" WHERE NOT "is_enabled"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_disabled_state" CHECK (("is_enabled" AND "disabled_reason" IS NULL AND "disabled_at" IS NULL) OR (NOT "is_enabled" AND "disabled_reason" IS NOT NULL AND "disabled_at" IS NOT NULL))`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_disabled_reason" CHECK ("disabled_reason" IN ('manual', 'gone', 'auto'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" DROP CONSTRAINT "chk_audit_log_entry_actor_type"`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" ADD CONSTRAINT "chk_audit_log_entry_actor_type" CHECK ("actor_type" IN ('user', 'cli', 'system'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" DROP CONSTRAINT "chk_audit_log_entry_actor_type"`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" ADD CONSTRAINT "chk_audit_log_entry_actor_type" CHECK ("actor_type" IN ('user', 'cli'))`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_disabled_reason"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_disabled_state"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "disabled_at"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "disabled_reason"`);
  }
}
