import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyKey1795389540035 implements MigrationInterface {
  name = 'IdempotencyKey1795389540035';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "idempotency_key" (
                "api_key_id" integer NOT NULL,
                "key" character varying(255) NOT NULL,
                "request_hash" character(64) NOT NULL,
                "status" character varying(16) NOT NULL,
                "response_status" integer,
                "response_body" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "locked_until" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_96f2d4f71b232b9bbb3284df119" PRIMARY KEY ("api_key_id", "key")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_idempotency_key_expires_at" ON "idempotency_key" ("expires_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_key"
            ADD CONSTRAINT "fk_idempotency_key_api_key" FOREIGN KEY ("api_key_id") REFERENCES "api_key"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "idempotency_key" DROP CONSTRAINT "fk_idempotency_key_api_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_idempotency_key_expires_at"
        `);
    await queryRunner.query(`
            DROP TABLE "idempotency_key"
        `);
  }
}
