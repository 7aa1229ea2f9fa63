import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A bulk recovery (and a replay) also covers pending deliveries waiting on a retry: those with
 * at least one failed attempt (docs/webhooks.md#bulk-recovery). A partial index over them,
 * (endpoint, id), counts an endpoint's since a time and walks them by id in batches, as the two
 * over failed deliveries do; it holds only the deliveries between a failed attempt and their
 * next outcome.
 */
export class RecoveryOfRetryingDeliveries1795946100000 implements MigrationInterface {
  name = 'RecoveryOfRetryingDeliveries1795946100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_retrying_id" ON "webhook_delivery" ("endpoint_id", "id")
            WHERE status = 'pending' AND attempt_count > 0
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_retrying_id"`);
  }
}
