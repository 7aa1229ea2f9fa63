import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lead search and a lead's delivery timeline (docs/dashboard.md#leads).
 *
 * Three btree indexes serve the dashboard's case-insensitive prefix searches within a campaign
 * (`LIKE 'x%'`): on the lower-cased email, and on the lower-cased name in both orders (first
 * then last, last then first). Each key is in the `C` collation, whatever the database's, so
 * that a `LIKE` prefix is an index range and `ORDER BY key, id` walks the index in order; `id`
 * last makes the keyset cursor `(key, id) > (…)` one range too. A phone search needs none: it
 * is an exact match on the E.164 form, served by `uq_lead_campaign_id_phone`.
 *
 * `webhook_event.lead_id`: the lead an event is about, set by the publisher (the `id` of a
 * `lead.created` event's data, the `lead_id` of the other lead types' data), so that a lead's
 * deliveries are found through `idx_webhook_event_lead_id` instead of by reading event bodies.
 * Events already recorded get theirs from their bodies here, once.
 */
export class LeadSearch1795927000000 implements MigrationInterface {
  name = 'LeadSearch1795927000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "idx_lead_search_email" ON "lead" ("campaign_id", (lower("email")) COLLATE "C", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_lead_search_name" ON "lead" ("campaign_id", (lower(coalesce("first_name", '') || ' ' || coalesce("last_name", ''))) COLLATE "C", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_lead_search_name_reversed" ON "lead" ("campaign_id", (lower(coalesce("last_name", '') || ' ' || coalesce("first_name", ''))) COLLATE "C", "id")`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_event" ADD "lead_id" bigint`);
    await queryRunner.query(
      `UPDATE "webhook_event" AS e SET "lead_id" = named.lead_id::bigint
         FROM (SELECT "id",
                      CASE WHEN "type" = 'lead.created' THEN "body"::jsonb -> 'data' ->> 'id'
                           ELSE "body"::jsonb -> 'data' ->> 'lead_id' END AS lead_id
                 FROM "webhook_event"
                WHERE "type" <> 'leads.bulk_created') AS named
        WHERE e."id" = named."id"
          AND named.lead_id ~ '^[1-9][0-9]{0,15}$'
          AND named.lead_id::numeric <= 9007199254740991`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_webhook_event_lead_id" ON "webhook_event" ("lead_id") WHERE lead_id IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_webhook_event_lead_id"`);
    await queryRunner.query(`ALTER TABLE "webhook_event" DROP COLUMN "lead_id"`);
    await queryRunner.query(`DROP INDEX "public"."idx_lead_search_name_reversed"`);
    await queryRunner.query(`DROP INDEX "public"."idx_lead_search_name"`);
    await queryRunner.query(`DROP INDEX "public"."idx_lead_search_email"`);
  }
}
