import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each outbox event keeps the W3C trace context of what recorded it (an upload, a dashboard
 * action, a CLI command), so that its deliveries' attempts are linked to that trace
 * (docs/operations.md#traces). Nullable without a default: adding it rewrites nothing, and it
 * stays null while tracing is off.
 */
export class EventTraceContext1795948000000 implements MigrationInterface {
  name = 'EventTraceContext1795948000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_event" ADD "trace_context" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_event" DROP COLUMN "trace_context"`);
  }
}
