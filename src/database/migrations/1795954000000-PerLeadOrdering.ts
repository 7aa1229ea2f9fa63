import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-lead ordering (docs/webhooks.md#per-lead-ordering): an endpoint's `ordering` (`none` or
 * `per_lead`); on the deliveries of an ordered endpoint, the lead their event names
 * (`lead_id`, null on every other delivery) and, while one waits behind an earlier delivery of
 * its lead, that delivery (`held_by`).
 *
 * The trigger releases what waits: when a delivery with a lead leaves `pending` (succeeded,
 * failed for good, dropped, skipped) or is deleted, the deliveries held behind it are made due
 * now, in the same transaction, whichever code path ended it. It fires only for deliveries that
 * have a lead (`WHEN`): those of unordered endpoints pay one comparison.
 */
export class PerLeadOrdering1795954000000 implements MigrationInterface {
  name = 'PerLeadOrdering1795954000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD "ordering" character varying(16) NOT NULL DEFAULT 'none'`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" ADD CONSTRAINT "chk_webhook_endpoint_ordering" CHECK ("ordering" IN ('none', 'per_lead'))`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_delivery" ADD "lead_id" bigint`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery" ADD "held_by" bigint`);
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_delivery_lead_pending" ON "webhook_delivery" ("endpoint_id", "lead_id", "id") WHERE status = 'pending' AND lead_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_delivery_held_by" ON "webhook_delivery" ("held_by") WHERE held_by IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE FUNCTION webhook_delivery_release_held() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE webhook_delivery SET held_by = NULL, next_attempt_at = now()
         WHERE held_by = OLD.id AND status = 'pending';
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER trg_webhook_delivery_release_held_on_end
        AFTER UPDATE OF status ON webhook_delivery
        FOR EACH ROW
        WHEN (OLD.lead_id IS NOT NULL AND OLD.status = 'pending' AND NEW.status <> 'pending')
        EXECUTE FUNCTION webhook_delivery_release_held()`);
    await queryRunner.query(`
      CREATE TRIGGER trg_webhook_delivery_release_held_on_delete
        AFTER DELETE ON webhook_delivery
        FOR EACH ROW
        WHEN (OLD.lead_id IS NOT NULL AND OLD.status = 'pending')
        EXECUTE FUNCTION webhook_delivery_release_held()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP TRIGGER trg_webhook_delivery_release_held_on_delete ON webhook_delivery`,
    );
    await queryRunner.query(
      `DROP TRIGGER trg_webhook_delivery_release_held_on_end ON webhook_delivery`,
    );
    await queryRunner.query(`DROP FUNCTION webhook_delivery_release_held()`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_held_by"`);
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_delivery_lead_pending"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery" DROP COLUMN "held_by"`);
    await queryRunner.query(`ALTER TABLE "webhook_delivery" DROP COLUMN "lead_id"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoint" DROP CONSTRAINT "chk_webhook_endpoint_ordering"`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_endpoint" DROP COLUMN "ordering"`);
  }
}
