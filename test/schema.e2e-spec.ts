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
});
