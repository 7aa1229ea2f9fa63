import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's identity layer (docs/dashboard.md#users-and-roles, #sessions, #audit-log):
 * dashboard users (emails unique whatever their case: a unique index on `lower(email)`),
 * their sessions (only the SHA-256 of the session token is stored), and the audit log, read
 * newest first per account by keyset on (`created_at`, `id`).
 */
export class Dashboard1795500000000 implements MigrationInterface {
  name = 'Dashboard1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "dashboard_user" (
                "id" SERIAL NOT NULL,
                "account_id" integer NOT NULL,
                "email" text NOT NULL,
                "role" text NOT NULL,
                "password_hash" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "disabled_at" TIMESTAMP WITH TIME ZONE,
                "password_changed_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "chk_dashboard_user_role" CHECK ("role" IN ('admin', 'viewer')),
                CONSTRAINT "PK_450acb76f1434b5b7119637e94a" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_dashboard_user_account_id" ON "dashboard_user" ("account_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_dashboard_user_email_lower" ON "dashboard_user" (lower("email"))
        `);
    await queryRunner.query(`
            CREATE TABLE "dashboard_session" (
                "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
                "token_hash" character(64) NOT NULL,
                "user_id" integer NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "last_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "ended_at" TIMESTAMP WITH TIME ZONE,
                "end_reason" text,
                "ip" inet,
                CONSTRAINT "PK_deab2ae5c177f27aaad7efdc66d" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_dashboard_session_token_hash" ON "dashboard_session" ("token_hash")
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_dashboard_session_user_id" ON "dashboard_session" ("user_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "audit_log_entry" (
                "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
                "account_id" integer,
                "actor_type" text NOT NULL,
                "actor_user_id" integer,
                "actor_email" text,
                "ip" inet,
                "action" text NOT NULL,
                "object_type" text,
                "object_id" text,
                "details" jsonb NOT NULL DEFAULT '{}',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "chk_audit_log_entry_actor_type" CHECK ("actor_type" IN ('user', 'cli')),
                CONSTRAINT "PK_905deda75b16075725a02ef38a0" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_audit_log_entry_account_created"
            ON "audit_log_entry" ("account_id", "created_at" DESC, "id" DESC)
        `);
    await queryRunner.query(`
            ALTER TABLE "dashboard_user"
            ADD CONSTRAINT "fk_dashboard_user_account" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "dashboard_session"
            ADD CONSTRAINT "fk_dashboard_session_user" FOREIGN KEY ("user_id") REFERENCES "dashboard_user"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "audit_log_entry"
            ADD CONSTRAINT "fk_audit_log_entry_account" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "audit_log_entry" DROP CONSTRAINT "fk_audit_log_entry_account"`,
    );
    await queryRunner.query(
      `ALTER TABLE "dashboard_session" DROP CONSTRAINT "fk_dashboard_session_user"`,
    );
    await queryRunner.query(
      `ALTER TABLE "dashboard_user" DROP CONSTRAINT "fk_dashboard_user_account"`,
    );
    await queryRunner.query(`DROP INDEX "public"."idx_audit_log_entry_account_created"`);
    await queryRunner.query(`DROP TABLE "audit_log_entry"`);
    await queryRunner.query(`DROP INDEX "public"."idx_dashboard_session_user_id"`);
    await queryRunner.query(`DROP INDEX "public"."uq_dashboard_session_token_hash"`);
    await queryRunner.query(`DROP TABLE "dashboard_session"`);
    await queryRunner.query(`DROP INDEX "public"."uq_dashboard_user_email_lower"`);
    await queryRunner.query(`DROP INDEX "public"."idx_dashboard_user_account_id"`);
    await queryRunner.query(`DROP TABLE "dashboard_user"`);
  }
}
