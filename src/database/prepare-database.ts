import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './database-options';

/** Arbitrary constant: the advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK_KEY = 727_401_001;

function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  return name;
}

/**
 * Creates the database named in `databaseUrl` when it does not exist (docs/configuration.md), by
 * connecting to the server's `postgres` database. Safe when several processes start at once.
 *
 * @throws the connection error when PostgreSQL cannot be reached.
 */
export async function ensureDatabaseExists(databaseUrl: string): Promise<boolean> {
  const name = databaseName(databaseUrl);
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const client = new Client({
    connectionString: adminUrl.toString(),
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      return true;
    } catch (error) {
      // Another process created it first: 42P04 duplicate_database once it has committed, or
      // 23505 unique_violation on pg_database's name when both CREATEs race.
      if (['42P04', '23505'].includes((error as { code?: string }).code ?? '')) return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}

/**
 * Applies pending migrations under a PostgreSQL advisory lock, so API, worker and CLI
 * processes starting together never run one twice.
 *
 * @returns the names of the migrations applied now.
 */
export async function runMigrations(databaseUrl: string): Promise<string[]> {
  const dataSource = new DataSource(buildDataSourceOptions(databaseUrl, 1));
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await dataSource.destroy();
  }
}

/** {@link ensureDatabaseExists} then {@link runMigrations}: what every entrypoint does first. */
export async function prepareDatabase(databaseUrl: string): Promise<string[]> {
  await ensureDatabaseExists(databaseUrl);
  return runMigrations(databaseUrl);
}
