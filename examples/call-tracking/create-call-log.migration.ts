import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * EXAMPLE ONLY: the schema of `call_log` (`CallLog`). A real module puts its migration in
 * `src/database/migrations/` and adds the class to `MIGRATIONS` there, so every process
 * applies it at start; this example's test applies it to its own database instead, and the
 * shipped service never creates `call_log` (docs/architecture.md#worked-example-call-tracking).
 */
export class CreateCallLogExample1795500000000 implements MigrationInterface {
  name = 'CreateCallLogExample1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "call_log" (
        "id" SERIAL NOT NULL,
        "campaign_id" integer NOT NULL,
        "call_id" character varying(64) NOT NULL,
        "phone" character varying(16) NOT NULL,
        "duration_seconds" integer NOT NULL,
        "outcome" character varying(16) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "uq_call_log_campaign_id_call_id" UNIQUE ("campaign_id", "call_id"),
        CONSTRAINT "PK_call_log" PRIMARY KEY ("id")
      )
    `);
    await queryRunner.query(`
      ALTER TABLE "call_log"
      ADD CONSTRAINT "fk_call_log_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaign"("id") ON DELETE CASCADE ON UPDATE NO ACTION
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "call_log" DROP CONSTRAINT "fk_call_log_campaign"`);
    await queryRunner.query(`DROP TABLE "call_log"`);
  }
}
