import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The embeddable portal (docs/dashboard.md#embedding-the-portal, docs/security.md#embedded-portal):
 * - `account.portal_origins`: the origins allowed to frame the account's portal (its
 *   `frame-ancestors`, the target of its messages); empty: the portal is never framed.
 * - `portal_link`: one minted link. Its secret and the embedded session's token are stored only
 *   as SHA-256 hashes; `used_at` marks the one exchange, `revoked_at` ends the link and its
 *   session; `expires_at` bounds both. The session token's hash is unique (every portal request
 *   reads the row by it).
 * - `audit_log_entry`: two more actor types, `portal` (a change through a portal session:
 *   `actor_label` `portal:<subject id>`) and `api_key` (a link minted or revoked with an API
 *   key), each with the key's prefix in `actor_key_prefix`.
 */
export class PortalSessions1795958000000 implements MigrationInterface {
  name = 'PortalSessions1795958000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "account" ADD "portal_origins" text array NOT NULL DEFAULT '{}'`,
    );
    await queryRunner.query(
      `CREATE TABLE "portal_link" (
         "id" uuid NOT NULL,
         "account_id" integer NOT NULL,
         "key_prefix" character varying(16),
         "secret_hash" character(64) NOT NULL,
         "session_token_hash" character(64),
         "role" text NOT NULL,
         "campaign_ids" integer array,
         "subject_id" character varying(200) NOT NULL,
         "subject_name" character varying(200),
         "subject_email" character varying(320),
         "pages" text array NOT NULL,
         "theme" jsonb NOT NULL DEFAULT '{}',
         "parent_origin" text NOT NULL,
         "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
         "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
         "used_at" TIMESTAMP WITH TIME ZONE,
         "revoked_at" TIMESTAMP WITH TIME ZONE,
         CONSTRAINT "chk_portal_link_role" CHECK ("role" IN ('admin', 'viewer')),
         CONSTRAINT "pk_portal_link" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_portal_link_session_token_hash" ON "portal_link" ("session_token_hash")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_portal_link_account_id" ON "portal_link" ("account_id")`,
    );
    await queryRunner.query(
      `ALTER TABLE "portal_link" ADD CONSTRAINT "fk_portal_link_account"
         FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "audit_log_entry" ADD "actor_label" text`);
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" ADD "actor_key_prefix" character varying(16)`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" DROP CONSTRAINT "chk_audit_log_entry_actor_type"`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" ADD CONSTRAINT "chk_audit_log_entry_actor_type" CHECK ("actor_type" IN ('user', 'cli', 'system', 'portal', 'api_key'))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DELETE FROM "audit_log_entry" WHERE "actor_type" IN ('portal', 'api_key')`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" DROP CONSTRAINT "chk_audit_log_entry_actor_type"`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" ADD CONSTRAINT "chk_audit_log_entry_actor_type" CHECK ("actor_type" IN ('user', 'cli', 'system'))`,
    );
    await queryRunner.query(`ALTER TABLE "audit_log_entry" DROP COLUMN "actor_key_prefix"`);
    await queryRunner.query(`ALTER TABLE "audit_log_entry" DROP COLUMN "actor_label"`);
    await queryRunner.query(`DROP TABLE "portal_link"`);
    await queryRunner.query(`ALTER TABLE "account" DROP COLUMN "portal_origins"`);
  }
}
