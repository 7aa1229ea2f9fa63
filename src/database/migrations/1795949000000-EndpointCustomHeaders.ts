import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoints keep custom headers sent with every request (docs/webhooks.md#custom-headers): a
 * jsonb list, empty for existing endpoints; a secret header's value is stored only encrypted.
 */
export class EndpointCustomHeaders1795949000000 implements MigrationInterface {
  name = 'EndpointCustomHeaders1795949000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD COLUMN "custom_headers" jsonb NOT NULL DEFAULT '[]'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "custom_headers"`);
  }
}
