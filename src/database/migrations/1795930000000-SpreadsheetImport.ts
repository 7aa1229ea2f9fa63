import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spreadsheet imports from the dashboard (docs/dashboard.md#spreadsheet-imports):
 * `spreadsheet_import` (one job: its file's facts, the column mapping, the compliance record and
 * the progress of its chunks, with a lease so that one worker runs it at a time) and
 * `spreadsheet_import_file_part` (the uploaded file, in parts of at most 1 MiB, so that any
 * process can read it and nothing is held whole in memory). Each chunk of a job is a
 * `lead_import` naming its job and chunk: unique, so a chunk retried after a crash is never
 * imported twice. A chunk is uploaded by a dashboard user, not an API key: `lead_import` now
 * records one or the other.
 */
export class SpreadsheetImport1795930000000 implements MigrationInterface {
  name = 'SpreadsheetImport1795930000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "spreadsheet_import" (
        "id" uuid NOT NULL,
        "campaign_id" integer NOT NULL,
        "user_id" integer NOT NULL,
        "file_name" character varying(255) NOT NULL,
        "format" character varying(8) NOT NULL,
        "size_bytes" bigint NOT NULL,
        "part_count" integer NOT NULL,
        "headers" jsonb NOT NULL,
        "sample_rows" jsonb NOT NULL,
        "total_rows" integer NOT NULL,
        "status" character varying(16) NOT NULL,
        "mapping" jsonb,
        "source" character varying(100),
        "tags" text array,
        "skip_duplicates" boolean,
        "disclaimer_version" character varying(32),
        "compliance_acknowledged_at" TIMESTAMP WITH TIME ZONE,
        "client_ip" character varying(64),
        "rows_read" integer NOT NULL DEFAULT '0',
        "next_chunk" integer NOT NULL DEFAULT '0',
        "valid_count" integer NOT NULL DEFAULT '0',
        "invalid_count" integer NOT NULL DEFAULT '0',
        "duplicate_count" integer NOT NULL DEFAULT '0',
        "error" character varying(500),
        "lease_owner" character varying(64),
        "lease_expires_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "started_at" TIMESTAMP WITH TIME ZONE,
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "PK_spreadsheet_import" PRIMARY KEY ("id"),
        CONSTRAINT "chk_spreadsheet_import_status" CHECK ("status" IN ('uploaded', 'running', 'done', 'cancelled', 'failed')),
        CONSTRAINT "chk_spreadsheet_import_format" CHECK ("format" IN ('csv', 'xlsx')),
        CONSTRAINT "fk_spreadsheet_import_campaign" FOREIGN KEY ("campaign_id")
          REFERENCES "campaign"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_spreadsheet_import_user" FOREIGN KEY ("user_id")
          REFERENCES "dashboard_user"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
      )`);
    await queryRunner.query(
      `CREATE INDEX "idx_spreadsheet_import_campaign_created" ON "spreadsheet_import" ("campaign_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_spreadsheet_import_running" ON "spreadsheet_import" ("created_at") WHERE status = 'running'`,
    );
    await queryRunner.query(`
      CREATE TABLE "spreadsheet_import_file_part" (
        "import_id" uuid NOT NULL,
        "part" integer NOT NULL,
        "data" bytea NOT NULL,
        CONSTRAINT "PK_spreadsheet_import_file_part" PRIMARY KEY ("import_id", "part"),
        CONSTRAINT "fk_spreadsheet_import_file_part_import" FOREIGN KEY ("import_id")
          REFERENCES "spreadsheet_import"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    // The parts are already compressed or read once: no TOAST compression to spend CPU on.
    await queryRunner.query(
      `ALTER TABLE "spreadsheet_import_file_part" ALTER COLUMN "data" SET STORAGE EXTERNAL`,
    );

    await queryRunner.query(`ALTER TABLE "lead_import" ALTER COLUMN "api_key_id" DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE "lead_import" ADD "user_id" integer`);
    await queryRunner.query(`ALTER TABLE "lead_import" ADD "spreadsheet_import_id" uuid`);
    await queryRunner.query(`ALTER TABLE "lead_import" ADD "chunk_index" integer`);
    await queryRunner.query(`ALTER TABLE "lead_import" ADD "first_row" integer`);
    await queryRunner.query(
      `ALTER TABLE "lead_import" ADD CONSTRAINT "chk_lead_import_uploader" CHECK ("api_key_id" IS NOT NULL OR "user_id" IS NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_lead_import_user_id" ON "lead_import" ("user_id")`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_lead_import_spreadsheet_chunk" ON "lead_import" ("spreadsheet_import_id", "chunk_index")`,
    );
    await queryRunner.query(`
      ALTER TABLE "lead_import" ADD CONSTRAINT "fk_lead_import_user" FOREIGN KEY ("user_id")
        REFERENCES "dashboard_user"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`);
    await queryRunner.query(`
      ALTER TABLE "lead_import" ADD CONSTRAINT "fk_lead_import_spreadsheet_import" FOREIGN KEY ("spreadsheet_import_id")
        REFERENCES "spreadsheet_import"("id") ON DELETE SET NULL ON UPDATE NO ACTION`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "lead_import" DROP CONSTRAINT "fk_lead_import_spreadsheet_import"`,
    );
    await queryRunner.query(`ALTER TABLE "lead_import" DROP CONSTRAINT "fk_lead_import_user"`);
    await queryRunner.query(`DROP INDEX "public"."uq_lead_import_spreadsheet_chunk"`);
    await queryRunner.query(`DROP INDEX "public"."idx_lead_import_user_id"`);
    await queryRunner.query(`ALTER TABLE "lead_import" DROP CONSTRAINT "chk_lead_import_uploader"`);
    await queryRunner.query(`ALTER TABLE "lead_import" DROP COLUMN "first_row"`);
    await queryRunner.query(`ALTER TABLE "lead_import" DROP COLUMN "chunk_index"`);
    await queryRunner.query(`ALTER TABLE "lead_import" DROP COLUMN "spreadsheet_import_id"`);
    await queryRunner.query(`ALTER TABLE "lead_import" DROP COLUMN "user_id"`);
    await queryRunner.query(`DELETE FROM "lead_import" WHERE "api_key_id" IS NULL`);
    await queryRunner.query(`ALTER TABLE "lead_import" ALTER COLUMN "api_key_id" SET NOT NULL`);
    await queryRunner.query(`DROP TABLE "spreadsheet_import_file_part"`);
    await queryRunner.query(`DROP TABLE "spreadsheet_import"`);
  }
}
