import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log's filters (docs/dashboard.md#audit-log): an account's entries of one action, and
 * those of one user (by email, whatever its case), newest first. Each is one backward range of
 * its index, so a rare action or a quiet user costs what the unfiltered first page does.
 */
export class AuditLogFilters1795945000000 implements MigrationInterface {
  name = 'AuditLogFilters1795945000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_audit_log_entry_account_action" ON "audit_log_entry" ("account_id", "action", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_log_entry_account_email" ON "audit_log_entry" ("account_id", lower("actor_email"), "created_at", "id") WHERE "actor_email" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_audit_log_entry_account_email"`);
    await queryRunner.query(`DROP INDEX "idx_audit_log_entry_account_action"`);
  }
}
