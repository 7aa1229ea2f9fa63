import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollup histograms as integer arrays instead of jsonb (docs/delivery-analytics.md#rollups):
 * the counts of buckets lo … hi, in an array whose lower bound is lo (bucket k at index k), lo
 * and hi the first and last bucket with a count; an empty histogram is `{}`. A chart read then
 * gets each histogram as a short list of numbers instead of a JSON object to parse and merge
 * key by key, so a 30-day chart with data costs about what an empty one does.
 *
 * Every row is converted in place, with the same counts in the same buckets; zero counts
 * outside lo … hi are dropped (they never counted). `down` converts back.
 */
export class RollupHistogramArrays1795935000000 implements MigrationInterface {
  name = 'RollupHistogramArrays1795935000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // ALTER … USING allows no subquery, so the conversion is a function for this session only.
    await queryRunner.query(`
            CREATE FUNCTION pg_temp.rollup_histogram_array(h jsonb) RETURNS integer[]
            LANGUAGE sql IMMUTABLE AS $$
                SELECT CASE WHEN count(*) = 0 THEN '{}'::integer[]
                            ELSE (format('[%s:%s]=', min(k), max(k))
                                  || array_agg(coalesce((h ->> k::text)::int, 0) ORDER BY k)::text)::integer[] END
                  FROM generate_series(
                         (SELECT min(key::int) FROM jsonb_each_text(h) WHERE value::int > 0),
                         (SELECT max(key::int) FROM jsonb_each_text(h) WHERE value::int > 0)) AS k
            $$
        `);
    await queryRunner.query(`
            ALTER TABLE "endpoint_delivery_rollup"
                ALTER COLUMN "latency" TYPE integer array USING pg_temp.rollup_histogram_array("latency"),
                ALTER COLUMN "lag" TYPE integer array USING pg_temp.rollup_histogram_array("lag")
        `);
    await queryRunner.query(`DROP FUNCTION pg_temp.rollup_histogram_array(jsonb)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE FUNCTION pg_temp.rollup_histogram_jsonb(h integer[]) RETURNS jsonb
            LANGUAGE sql IMMUTABLE AS $$
                SELECT coalesce(jsonb_object_agg(k::text, h[k]) FILTER (WHERE h[k] > 0), '{}'::jsonb)
                  FROM generate_subscripts(h, 1) AS k
            $$
        `);
    await queryRunner.query(`
            ALTER TABLE "endpoint_delivery_rollup"
                ALTER COLUMN "latency" TYPE jsonb USING pg_temp.rollup_histogram_jsonb("latency"),
                ALTER COLUMN "lag" TYPE jsonb USING pg_temp.rollup_histogram_jsonb("lag")
        `);
    await queryRunner.query(`DROP FUNCTION pg_temp.rollup_histogram_jsonb(integer[])`);
  }
}
