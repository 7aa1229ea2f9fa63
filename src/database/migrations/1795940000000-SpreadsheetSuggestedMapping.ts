import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A spreadsheet import keeps the column mapping its header row suggests, `suggested_mapping`
 * (docs/dashboard.md#column-mapping), worked out once when the file is uploaded instead of on
 * every read: fuzzy matching a wide header row cost seconds of the event loop per read of an
 * import or of the list. Imports uploaded before keep an empty suggestion (`{}`); an unstarted
 * upload expires within a day anyway.
 */
export class SpreadsheetSuggestedMapping1795940000000 implements MigrationInterface {
  name = 'SpreadsheetSuggestedMapping1795940000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "spreadsheet_import" ADD "suggested_mapping" jsonb NOT NULL DEFAULT '{}'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "spreadsheet_import" DROP COLUMN "suggested_mapping"`);
  }
}
