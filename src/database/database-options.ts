import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';

/**
 * TypeORM options for PostgreSQL at `databaseUrl`. The schema comes only from committed
 * migrations (`synchronize` is off). The pool fails fast when PostgreSQL is unreachable, so a
 * request gets 503 quickly instead of hanging.
 *
 * @param databaseUrl `postgres://user@host:port/db`.
 * @param poolSize maximum connections this process opens.
 * @param entities the entities to map. The service's modules register their own
 *   (`TypeOrmModule.forFeature`, loaded with `autoLoadEntities`); running migrations needs
 *   none; the TypeORM CLI passes every one (`src/entities.ts`).
 */
export function buildDataSourceOptions(
  databaseUrl: string,
  poolSize = 10,
  entities: DataSourceOptions['entities'] = [],
): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
      application_name: 'campaign-api',
    },
  };
}
