import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Suppression list fingerprints (docs/privacy.md#fingerprints):
 * - `suppression_entry.fingerprint`: a 32-bit keyed fingerprint of the identifier, which lets
 *   an upload skip the keyed hash and the lookup of nearly every lead that is not listed. The
 *   entries made before have none (their identifiers are not kept to compute it): their
 *   accounts' checks look up every lead, as before, until those entries are added again.
 * - `suppression_entry.list_version` and `suppression_list`: each list's version, moved on by
 *   every change, so a process's cached filter reads only the entries added since it was made.
 *   (`account_id`, `list_version`) indexes that read.
 */
export class SuppressionFingerprints1795960000000 implements MigrationInterface {
  name = 'SuppressionFingerprints1795960000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "suppression_entry" ADD "fingerprint" integer`);
    await queryRunner.query(
      `ALTER TABLE "suppression_entry" ADD "list_version" bigint NOT NULL DEFAULT '0'`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_suppression_entry_account_version" ON "suppression_entry" ("account_id", "list_version")`,
    );
    await queryRunner.query(
      `CREATE TABLE "suppression_list" (
         "account_id" integer NOT NULL,
         "version" bigint NOT NULL,
         CONSTRAINT "pk_suppression_list" PRIMARY KEY ("account_id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "suppression_list" ADD CONSTRAINT "fk_suppression_list_account"
         FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "suppression_list"`);
    await queryRunner.query(`DROP INDEX "idx_suppression_entry_account_version"`);
    await queryRunner.query(`ALTER TABLE "suppression_entry" DROP COLUMN "list_version"`);
    await queryRunner.query(`ALTER TABLE "suppression_entry" DROP COLUMN "fingerprint"`);
  }
}
