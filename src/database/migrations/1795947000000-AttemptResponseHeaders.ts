import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery attempts keep the response's headers (docs/dashboard.md#attempt-detail), bounded by
 * the worker before they are written. Nullable with no default: adding it rewrites no partition,
 * and attempts recorded before it show none.
 */
export class AttemptResponseHeaders1795947000000 implements MigrationInterface {
  name = 'AttemptResponseHeaders1795947000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" ADD COLUMN "response_headers" json`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery_attempt" DROP COLUMN "response_headers"`,
    );
  }
}
