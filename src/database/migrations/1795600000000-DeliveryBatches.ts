import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries queued in batches (docs/reliability.md "One scheduled attempt at a time"): a
 * scheduled attempt records its number among its delivery's attempts in `attempt_number`,
 * unique per delivery, so two queue jobs that read the same state of a delivery begin one
 * attempt between them. Existing attempts keep NULL (they were begun under the old
 * one-job-per-delivery rule, which already excluded a second one). Adding a nullable column
 * and building a partial index over no rows is instant.
 */
export class DeliveryBatches1795600000000 implements MigrationInterface {
  name = 'DeliveryBatches1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt" ADD "attempt_number" integer
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_webhook_delivery_attempt_number" ON "webhook_delivery_attempt" ("delivery_id", "attempt_number")
            WHERE attempt_number IS NOT NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_delivery_attempt_number"`);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt" DROP COLUMN "attempt_number"
        `);
  }
}
