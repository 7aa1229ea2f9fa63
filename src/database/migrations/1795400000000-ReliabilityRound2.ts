import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deployment identity (its queue namespace is derived from it) and attempts recorded
 * before they are sent: `finished_at` is NULL while an attempt is in flight.
 */
export class ReliabilityRound21795400000000 implements MigrationInterface {
  name = 'ReliabilityRound21795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "deployment" (
                "id" uuid NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "PK_ee1c5ee4e3ca2d1e1ee1ba6b9e4" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`INSERT INTO "deployment" ("id") VALUES (gen_random_uuid())`);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt" ADD "finished_at" TIMESTAMP WITH TIME ZONE
        `);
    await queryRunner.query(`
            UPDATE "webhook_delivery_attempt" SET "finished_at" = "attempted_at"
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_attempt_unfinished" ON "webhook_delivery_attempt" ("attempted_at")
            WHERE finished_at IS NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_attempt_unfinished"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery_attempt" DROP COLUMN "finished_at"`);
    await queryRunner.query(`DROP TABLE "deployment"`);
  }
}
