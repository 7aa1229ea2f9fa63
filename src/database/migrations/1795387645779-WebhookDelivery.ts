import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookDelivery1795387645779 implements MigrationInterface {
  name = 'WebhookDelivery1795387645779';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "webhook_endpoint" (
                "id" SERIAL NOT NULL,
                "campaign_id" integer NOT NULL,
                "url" character varying(2048) NOT NULL,
                "description" character varying(500),
                "subscribed_events" text array NOT NULL,
                "is_enabled" boolean NOT NULL DEFAULT true,
                "secret_encrypted" text NOT NULL,
                "previous_secret_encrypted" text,
                "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "total_deliveries" integer NOT NULL DEFAULT '0',
                "successful_deliveries" integer NOT NULL DEFAULT '0',
                "failed_deliveries" integer NOT NULL DEFAULT '0',
                "total_duration_ms" double precision NOT NULL DEFAULT '0',
                "last_delivery_at" TIMESTAMP WITH TIME ZONE,
                "last_delivery_is_successful" boolean,
                CONSTRAINT "PK_6c98112122b2b8a4f3984d2efa8" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_endpoint_campaign_id" ON "webhook_endpoint" ("campaign_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_event" (
                "id" uuid NOT NULL,
                "campaign_id" integer NOT NULL,
                "type" character varying(64) NOT NULL,
                "body" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_0f56d2f40f5ec823acf8e8edad1" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_event_campaign_id_created_at" ON "webhook_event" ("campaign_id", "created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_delivery" (
                "id" BIGSERIAL NOT NULL,
                "event_id" uuid NOT NULL,
                "endpoint_id" integer NOT NULL,
                "status" character varying(16) NOT NULL DEFAULT 'pending',
                "attempt_count" integer NOT NULL DEFAULT '0',
                "next_attempt_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "uq_webhook_delivery_event_id_endpoint_id" UNIQUE ("event_id", "endpoint_id"),
                CONSTRAINT "PK_b1ae290239a778f12399db91354" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_endpoint_id" ON "webhook_delivery" ("endpoint_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_pending" ON "webhook_delivery" ("next_attempt_at")
            WHERE status = 'pending'
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_delivery_attempt" (
                "id" BIGSERIAL NOT NULL,
                "endpoint_id" integer NOT NULL,
                "delivery_id" bigint,
                "message_id" character varying(64) NOT NULL,
                "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "duration_ms" double precision NOT NULL,
                "status_code" integer,
                "success" boolean NOT NULL,
                "error" character varying(500),
                "response_excerpt" character varying(1024),
                CONSTRAINT "PK_e6efad829bd07e78a18fd0ad5d5" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_attempt_delivery_id" ON "webhook_delivery_attempt" ("delivery_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "idx_webhook_delivery_attempt_endpoint_id_id" ON "webhook_delivery_attempt" ("endpoint_id", "id")
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_endpoint"
            ADD CONSTRAINT "fk_webhook_endpoint_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaign"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_event"
            ADD CONSTRAINT "fk_webhook_event_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaign"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery"
            ADD CONSTRAINT "fk_webhook_delivery_event" FOREIGN KEY ("event_id") REFERENCES "webhook_event"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery"
            ADD CONSTRAINT "fk_webhook_delivery_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt"
            ADD CONSTRAINT "fk_webhook_delivery_attempt_endpoint" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt"
            ADD CONSTRAINT "fk_webhook_delivery_attempt_delivery" FOREIGN KEY ("delivery_id") REFERENCES "webhook_delivery"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt" DROP CONSTRAINT "fk_webhook_delivery_attempt_delivery"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery_attempt" DROP CONSTRAINT "fk_webhook_delivery_attempt_endpoint"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery" DROP CONSTRAINT "fk_webhook_delivery_endpoint"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_delivery" DROP CONSTRAINT "fk_webhook_delivery_event"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_event" DROP CONSTRAINT "fk_webhook_event_campaign"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "fk_webhook_endpoint_campaign"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_delivery_attempt_endpoint_id_id"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_delivery_attempt_delivery_id"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_delivery_attempt"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_delivery_pending"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_delivery_endpoint_id"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_delivery"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_event_campaign_id_created_at"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_event"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."idx_webhook_endpoint_campaign_id"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_endpoint"
        `);
  }
}
