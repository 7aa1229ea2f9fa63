import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries queued in batches (docs/reliability.md "One scheduled attempt at a time"): a
 * scheduled attempt records its number among its delivery's attempts in `attempt_number`,
 * unique per (delivery, number), so two queue jobs that read the same state of a delivery
 * begin one attempt between them. Existing attempts keep NULL (they were begun under the old
 * one-job-per-delivery rule, which already excluded a second one; NULLs never collide). The
 * unique index, led by `delivery_id`, replaces the index on `delivery_id` alone: one index
 * fewer to maintain on every attempt written. Building it runs under the migration's lock,
 * blocking attempt writes for its duration (about a second per million attempts).
 */
export class DeliveryBatches1795600000000 implements MigrationInterface {
  name = 'DeliveryBatches1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt" ADD "attempt_number" integer
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_webhook_delivery_attempt_number" ON "webhook_delivery_attempt" ("delivery_id", "attempt_number")
        `);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_attempt_delivery_id"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_attempt_delivery_id" ON "webhook_delivery_attempt" ("delivery_id")
        `);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_delivery_attempt_number"`);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt" DROP COLUMN "attempt_number"
        `);
  }
}
