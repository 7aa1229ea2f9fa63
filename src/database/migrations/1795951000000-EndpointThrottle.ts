import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-endpoint throttling (docs/webhooks.md#throttling): an endpoint's optional most
 * deliveries per second and most attempts in flight (null: unlimited), and on each delivery
 * until when it waits on its endpoint's throttle (null: it never did, or not since its last
 * attempt was scheduled). All nullable without a default: adding them rewrites no row.
 */
export class EndpointThrottle1795951000000 implements MigrationInterface {
  name = 'EndpointThrottle1795951000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "max_deliveries_per_second" integer`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD "max_in_flight" integer`);
    await queryRunner.query(
      `ALTER TABLE "webhook_delivery" ADD "throttled_until" TIMESTAMP WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_delivery" DROP COLUMN "throttled_until"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "max_in_flight"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP COLUMN "max_deliveries_per_second"`,
    );
  }
}
