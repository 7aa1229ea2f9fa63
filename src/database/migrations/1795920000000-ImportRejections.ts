import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each import keeps its rejected rows (docs/dashboard.md#imports): `lead_import_rejection`,
 * one row per rejected lead, deleted with its import and after `DELIVERY_RETENTION_DAYS` by
 * retention (docs/operations.md#retention), which deletes by `created_at`.
 */
export class ImportRejections1795920000000 implements MigrationInterface {
  name = 'ImportRejections1795920000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "lead_import_rejection" (
        "import_id" uuid NOT NULL,
        "row" integer NOT NULL,
        "field" character varying(32) NOT NULL,
        "message" character varying(200) NOT NULL,
        "submitted" jsonb NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "PK_lead_import_rejection" PRIMARY KEY ("import_id", "row"),
        CONSTRAINT "fk_lead_import_rejection_import" FOREIGN KEY ("import_id")
          REFERENCES "lead_import"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await queryRunner.query(
      `CREATE INDEX "idx_lead_import_rejection_created_at" ON "lead_import_rejection" ("created_at")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lead_import_rejection"`);
  }
}
