import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payload filters (docs/webhooks.md#payload-filters): an endpoint's optional CEL filter
 * (nullable, no default: adding it rewrites no row), and `endpoint_filtered_day`, how many
 * events each endpoint's filter left out per UTC day (the delivery ledger's `filtered`
 * column), upserted in the transaction that records the events. Its primary key
 * (`endpoint_id`, `day`) serves the ledger's range and the foreign key's cascade.
 */
export class EndpointPayloadFilter1795955000000 implements MigrationInterface {
  name = 'EndpointPayloadFilter1795955000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" ADD "filter" text`);
    await queryRunner.query(
      `CREATE TABLE "endpoint_filtered_day" (
         "endpoint_id" integer NOT NULL,
         "day" date NOT NULL,
         "filtered" integer NOT NULL DEFAULT 0,
         "errors" integer NOT NULL DEFAULT 0,
         CONSTRAINT "pk_endpoint_filtered_day" PRIMARY KEY ("endpoint_id", "day"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "endpoint_filtered_day" ADD CONSTRAINT "fk_endpoint_filtered_day_endpoint"
         FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "endpoint_filtered_day"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "filter"`);
  }
}
