import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1795386531968 implements MigrationInterface {
  name = 'InitialSchema1795386531968';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "account" (
                "id" SERIAL NOT NULL,
                "name" character varying(200) NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_54115ee388cdb6d86bb4bf5b2ea" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "campaign" (
                "id" SERIAL NOT NULL,
                "account_id" integer NOT NULL,
                "name" character varying(200) NOT NULL,
                "default_region" character varying(2) NOT NULL DEFAULT 'US',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_0ce34d26e7f2eb316a3a592cdc4" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_campaign_account_id" ON "campaign" ("account_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "api_key" (
                "id" SERIAL NOT NULL,
                "account_id" integer NOT NULL,
                "name" character varying(200),
                "key_hash" character(64) NOT NULL,
                "key_prefix" character varying(16) NOT NULL,
                "campaign_ids" integer array,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                "last_used_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_b1bd840641b8acbaad89c3d8d11" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_api_key_account_id" ON "api_key" ("account_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "uq_api_key_key_hash" ON "api_key" ("key_hash")
        `);
    await queryRunner.query(`
            CREATE TABLE "lead_import" (
                "id" uuid NOT NULL,
                "campaign_id" integer NOT NULL,
                "api_key_id" integer NOT NULL,
                "source" character varying(100) NOT NULL,
                "tags" text array NOT NULL,
                "disclaimer_version" character varying(32) NOT NULL,
                "compliance_acknowledged_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "client_ip" character varying(64),
                "received_count" integer NOT NULL,
                "valid_count" integer NOT NULL,
                "invalid_count" integer NOT NULL,
                "duplicate_count" integer NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_8e5349fb93f689e6b4635d994da" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_lead_import_api_key_id" ON "lead_import" ("api_key_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_lead_import_campaign_id_created_at" ON "lead_import" ("campaign_id", "created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "lead" (
                "id" BIGSERIAL NOT NULL,
                "campaign_id" integer NOT NULL,
                "phone" character varying(16) NOT NULL,
                "first_name" character varying(255),
                "last_name" character varying(255),
                "email" character varying(320),
                "company" character varying(255),
                "title" character varying(255),
                "tags" text array NOT NULL DEFAULT '{}',
                "source" character varying(100) NOT NULL,
                "import_id" uuid NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "uq_lead_campaign_id_phone" UNIQUE ("campaign_id", "phone"),
                CONSTRAINT "PK_ca96c1888f7dcfccab72b72fffa" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_lead_import_id" ON "lead" ("import_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "campaign"
            ADD CONSTRAINT "fk_campaign_account" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "api_key"
            ADD CONSTRAINT "fk_api_key_account" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "lead_import"
            ADD CONSTRAINT "fk_lead_import_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaign"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "lead_import"
            ADD CONSTRAINT "fk_lead_import_api_key" FOREIGN KEY ("api_key_id") REFERENCES "api_key"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "lead"
            ADD CONSTRAINT "fk_lead_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaign"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "lead"
            ADD CONSTRAINT "fk_lead_import" FOREIGN KEY ("import_id") REFERENCES "lead_import"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "lead" DROP CONSTRAINT "fk_lead_import"
        `);
    await queryRunner.query(`
            ALTER TABLE "lead" DROP CONSTRAINT "fk_lead_campaign"
        `);
    await queryRunner.query(`
            ALTER TABLE "lead_import" DROP CONSTRAINT "fk_lead_import_api_key"
        `);
    await queryRunner.query(`
            ALTER TABLE "lead_import" DROP CONSTRAINT "fk_lead_import_campaign"
        `);
    await queryRunner.query(`
            ALTER TABLE "api_key" DROP CONSTRAINT "fk_api_key_account"
        `);
    await queryRunner.query(`
            ALTER TABLE "campaign" DROP CONSTRAINT "fk_campaign_account"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_lead_import_id"
        `);
    await queryRunner.query(`
            DROP TABLE "lead"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_lead_import_campaign_id_created_at"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_lead_import_api_key_id"
        `);
    await queryRunner.query(`
            DROP TABLE "lead_import"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."uq_api_key_key_hash"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_api_key_account_id"
        `);
    await queryRunner.query(`
            DROP TABLE "api_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_campaign_account_id"
        `);
    await queryRunner.query(`
            DROP TABLE "campaign"
        `);
    await queryRunner.query(`
            DROP TABLE "account"
        `);
  }
}
