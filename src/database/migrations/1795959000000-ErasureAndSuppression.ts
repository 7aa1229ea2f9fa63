import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Erasure and suppression (docs/privacy.md):
 * - `suppression_entry`: an account's phones and emails that must not be stored again, as
 *   keyed hashes (HMAC-SHA-256, 32 bytes) with the id of the key; the primary key
 *   (`account_id`, `hash`) answers an upload's `hash = ANY(…)` check.
 * - `erasure_receipt`: one row per erasure, with its counts per kind of record and the
 *   person's keyed hashes only; listed per account, newest first.
 * A delivery cancelled by an erasure is `skipped` with `status_reason = 'erased'`: the column
 * exists (varchar(24)), no change.
 */
export class ErasureAndSuppression1795959000000 implements MigrationInterface {
  name = 'ErasureAndSuppression1795959000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "suppression_entry" (
         "account_id" integer NOT NULL,
         "hash" bytea NOT NULL,
         "kind" character varying(8) NOT NULL,
         "key_id" smallint NOT NULL,
         "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         CONSTRAINT "chk_suppression_entry_kind" CHECK ("kind" IN ('phone', 'email')),
         CONSTRAINT "pk_suppression_entry" PRIMARY KEY ("account_id", "hash"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "suppression_entry" ADD CONSTRAINT "fk_suppression_entry_account"
         FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `CREATE TABLE "erasure_receipt" (
         "id" uuid NOT NULL,
         "account_id" integer NOT NULL,
         "campaign_id" integer,
         "phone_hash" bytea,
         "email_hash" bytea,
         "key_id" smallint NOT NULL,
         "counts" jsonb NOT NULL,
         "suppressed" boolean NOT NULL,
         "requested_by" character varying(64) NOT NULL,
         "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         CONSTRAINT "pk_erasure_receipt" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_erasure_receipt_account_created" ON "erasure_receipt" ("account_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "erasure_receipt" ADD CONSTRAINT "fk_erasure_receipt_account"
         FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "erasure_receipt"`);
    await queryRunner.query(`DROP TABLE "suppression_entry"`);
  }
}
