import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The cleanup of spreadsheet uploads never started (docs/dashboard.md): a partial
 * index on the `uploaded` imports by age, so the periodic delete of those older than
 * `SPREADSHEET_UPLOAD_TTL` reads only them instead of every import ever made.
 */
export class UnstartedUploadIndex1795953000000 implements MigrationInterface {
  name = 'UnstartedUploadIndex1795953000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_spreadsheet_import_uploaded" ON "spreadsheet_import" ("created_at") WHERE status = 'uploaded'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_spreadsheet_import_uploaded"`);
  }
}
