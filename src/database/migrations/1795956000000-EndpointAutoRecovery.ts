import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints that come back by themselves (docs/webhooks.md#endpoints-that-come-back-by-themselves):
 * the per-endpoint opt-in (`auto_recover`, off) and the probing state every worker shares
 * (`probing_since`, `next_probe_at`, `probe_count`, `last_probe_at`, `probe_gave_up_at`), with a
 * partial index over the endpoints that have a probe due (none at first). The defaults are
 * constants: adding the columns rewrites no row.
 */
export class EndpointAutoRecovery1795956000000 implements MigrationInterface {
  name = 'EndpointAutoRecovery1795956000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "auto_recover" boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "probing_since" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "next_probe_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "probe_count" integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "last_probe_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "probe_gave_up_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_probe_state" CHECK ("next_probe_at" IS NULL OR (NOT "is_enabled" AND "disabled_reason" = 'auto' AND "auto_recover" AND "probing_since" IS NOT NULL))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_endpoint_next_probe_at" ON "webhook_endpoint" ("next_probe_at") WHERE "next_probe_at" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_endpoint_next_probe_at"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_probe_state"`,
    );
    for (const column of [
      'probe_gave_up_at',
      'last_probe_at',
      'probe_count',
      'next_probe_at',
      'probing_since',
      'auto_recover',
    ]) {
      await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "${column}"`);
    }
  }
}
