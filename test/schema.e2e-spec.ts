import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../src/database/database-options';
import { ENTITIES } from '../src/entities';
import { TEST_DATABASE_URL } from './support/env';

describe('Schema', () => {
  it('the committed migrations produce exactly the schema the entities describe', async () => {
    // global-setup applied every migration to a fresh database; ask TypeORM what it would change.
    const dataSource = new DataSource(buildDataSourceOptions(TEST_DATABASE_URL, 1, ENTITIES));
    await dataSource.initialize();
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
      expect(await dataSource.showMigrations()).toBe(false);
    } finally {
      await dataSource.destroy();
    }
  });

  it("keeps each lead in its import's campaign: one foreign key refuses a lead of another campaign", async () => {
    const dataSource = new DataSource(buildDataSourceOptions(TEST_DATABASE_URL, 1, ENTITIES));
    await dataSource.initialize();
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      const [{ id: accountId }] = await runner.query(
        `INSERT INTO account (name) VALUES ('schema test') RETURNING id`,
      );
      const [first, second]: Array<{ id: number }> = await runner.query(
        `INSERT INTO campaign (account_id, name) VALUES ($1, 'a'), ($1, 'b') RETURNING id`,
        [accountId],
      );
      const [{ id: apiKeyId }] = await runner.query(
        `INSERT INTO api_key (account_id, key_hash, key_prefix) VALUES ($1, repeat('0', 64), 'schema') RETURNING id`,
        [accountId],
      );
      const importId = '00000000-0000-4000-8000-000000000001';
      await runner.query(
        `INSERT INTO lead_import (id, campaign_id, api_key_id, source, tags, disclaimer_version,
                                  compliance_acknowledged_at, received_count, valid_count, invalid_count, duplicate_count)
         VALUES ($1, $2, $3, 'test', '{}', 'v1', now(), 1, 1, 0, 0)`,
        [importId, first.id, apiKeyId],
      );
      const insertLead = (campaignId: number, phone: string) =>
        runner.query(
          `INSERT INTO lead (campaign_id, import_id, source, phone) VALUES ($1, $2, 'test', $3)`,
          [campaignId, importId, phone],
        );
      await insertLead(first.id, '+14155550100');
      await runner.query('SAVEPOINT other_campaign');
      await expect(insertLead(second.id, '+14155550101')).rejects.toMatchObject({
        driverError: { code: '23503', constraint: 'fk_lead_lead_import' },
      });
      await runner.query('ROLLBACK TO SAVEPOINT other_campaign');
      const leads: Array<{ campaign_id: number }> = await runner.query(
        'SELECT campaign_id FROM lead WHERE import_id = $1',
        [importId],
      );
      expect(leads).toEqual([{ campaign_id: first.id }]);
      // The campaign of a lead cannot go while the lead is there.
      await expect(
        runner.query('DELETE FROM campaign WHERE id = $1', [first.id]),
      ).rejects.toMatchObject({
        driverError: { code: '23503' },
      });
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
      await dataSource.destroy();
    }
  });
});
