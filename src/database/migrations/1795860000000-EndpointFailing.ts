import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failing endpoints (docs/webhooks.md#failing-endpoints): since when and why an enabled
 * endpoint is failing (`failing_since`, `failing_reason`), both null while it is not, and
 * always while it is disabled. Every existing endpoint starts not failing; the worker's first
 * check marks those the rules find failing.
 */
export class EndpointFailing1795860000000 implements MigrationInterface {
  name = 'EndpointFailing1795860000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "failing_since" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "failing_reason" character varying(16)`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_failing_state" CHECK (("failing_since" IS NULL) = ("failing_reason" IS NULL) AND ("failing_since" IS NULL OR "is_enabled"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_failing_reason" CHECK ("failing_reason" IN ('failure_rate', 'no_success'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_failing_reason"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_failing_state"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "failing_reason"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "failing_since"`);
  }
}
