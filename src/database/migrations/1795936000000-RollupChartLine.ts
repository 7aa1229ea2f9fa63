import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each rollup row also keeps what a chart reads of it as one line of text, `chart_line`
 * (docs/delivery-analytics.md#rollups): its start (ms since the epoch), attempts, successes, the
 * six failure counts, first successes and the two histograms, separated by spaces. (The summed
 * duration, a double, is read as its column: as text its digits would depend on the writer's
 * `extra_float_digits`.) A trigger renders it from the row's columns whenever a row is inserted or updated,
 * so it never disagrees with them; the columns stay what everything else reads and sums.
 *
 * Why: a chart point read as fourteen columns cost PostgreSQL an output function per column
 * and per histogram bucket on every read; read as one stored line it is copied out as it is,
 * and a 30-day chart with data costs about what an empty one does. Rows already there are
 * rendered here, once.
 */
export class RollupChartLine1795936000000 implements MigrationInterface {
  name = 'RollupChartLine1795936000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "endpoint_delivery_rollup" ADD "chart_line" text`);
    await queryRunner.query(`
            CREATE FUNCTION endpoint_delivery_rollup_chart_line() RETURNS trigger
            LANGUAGE plpgsql AS $$
            BEGIN
                NEW.chart_line := concat_ws(' ',
                    (extract(epoch FROM NEW.bucket_start) * 1000)::bigint,
                    NEW.attempts, NEW.successes, NEW.timeouts, NEW.connection_errors, NEW.redirects,
                    NEW.client_errors, NEW.server_errors, NEW.other_failures, NEW.first_successes,
                    NEW.latency, NEW.lag);
                RETURN NEW;
            END
            $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER endpoint_delivery_rollup_chart_line
            BEFORE INSERT OR UPDATE ON "endpoint_delivery_rollup"
            FOR EACH ROW EXECUTE FUNCTION endpoint_delivery_rollup_chart_line()
        `);
    // The trigger renders every row already there.
    await queryRunner.query(`UPDATE "endpoint_delivery_rollup" SET "chart_line" = ''`);
    await queryRunner.query(
      `ALTER TABLE "endpoint_delivery_rollup" ALTER COLUMN "chart_line" SET NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP TRIGGER endpoint_delivery_rollup_chart_line ON "endpoint_delivery_rollup"`,
    );
    await queryRunner.query(`DROP FUNCTION endpoint_delivery_rollup_chart_line()`);
    await queryRunner.query(`ALTER TABLE "endpoint_delivery_rollup" DROP COLUMN "chart_line"`);
  }
}
