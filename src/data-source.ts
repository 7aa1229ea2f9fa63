import 'reflect-metadata';
import { config as loadDotenv } from 'dotenv';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './database/database-options';
import { ENTITIES } from './entities';

loadDotenv({ quiet: true });

/**
 * Data source for the TypeORM CLI (`npm run migration:generate -- src/database/migrations/Name`).
 * The service itself does not use this file.
 */
export default new DataSource(
  buildDataSourceOptions(
    process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/campaign_api',
    1,
    ENTITIES,
  ),
);
