import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A recovery's deliveries are fixed when it starts (docs/webhooks.md#bulk-recovery): one row per
 * delivery it covers, walked by id in batches and removed when it ends. Before, a recovery
 * walked whatever was of its scope in its id range when each batch came, so a delivery that
 * failed while it ran joined it, and `processed` could exceed `total`. A recovery running
 * during the upgrade gets the deliveries of its scope still ahead of its cursor.
 */
export class RecoveryFixedDeliveries1795952500000 implements MigrationInterface {
  name = 'RecoveryFixedDeliveries1795952500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "delivery_recovery_delivery" (
                "recovery_id" integer NOT NULL,
                "delivery_id" bigint NOT NULL,
                CONSTRAINT "pk_delivery_recovery_delivery" PRIMARY KEY ("recovery_id", "delivery_id")
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "delivery_recovery_delivery"
            ADD CONSTRAINT "fk_delivery_recovery_delivery_recovery" FOREIGN KEY ("recovery_id")
            REFERENCES "delivery_recovery"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            INSERT INTO "delivery_recovery_delivery" ("recovery_id", "delivery_id")
            SELECT r.id, d.id FROM "delivery_recovery" r
              JOIN "webhook_delivery" d
                ON d.endpoint_id = r.endpoint_id AND d.created_at >= r.since
               AND d.id > r.cursor_delivery_id AND d.id <= r.last_delivery_id
               AND (d.status = 'failed'
                    OR (r.scope = 'missed' AND d.status IN ('skipped', 'dropped'))
                    OR (d.status = 'pending' AND d.attempt_count > 0))
             WHERE r.status = 'running'
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "delivery_recovery_delivery"`);
  }
}
