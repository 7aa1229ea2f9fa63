import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery ledger's index (docs/dashboard.md#delivery-ledger): an endpoint's deliveries by
 * `created_at`, so counting one endpoint's deliveries of the last N days reads one index range.
 * It replaces the index on `endpoint_id` alone, which it covers (its leading column serves the
 * endpoint's foreign key and the cascade of an endpoint's deletion). The new index is built
 * before the old one is dropped, so that key is never without an index. `created_at` itself
 * exists since WebhookDelivery1795387645779 (NOT NULL, default `now()`); the `skipped` status
 * needs no change either (`status` is a `varchar(16)`).
 */
export class DeliveryLedger1795840000000 implements MigrationInterface {
  name = 'DeliveryLedger1795840000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_delivery_endpoint_id_created_at" ON "webhook_delivery" ("endpoint_id", "created_at")`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_endpoint_id"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_delivery_endpoint_id" ON "webhook_delivery" ("endpoint_id")`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_endpoint_id_created_at"`);
  }
}
