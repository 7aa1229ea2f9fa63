import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './env';
import { prepareDatabase } from '../../src/database/prepare-database';

/**
 * Runs once before the e2e suite: drops and recreates the test database from the committed
 * migrations (so every run starts from the schema production gets), and builds dist/ when it
 * is stale, for the tests that run the compiled CLI.
 */
export default async function globalSetup(): Promise<void> {
  const url = new URL(TEST_DATABASE_URL);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  await prepareDatabase(TEST_DATABASE_URL);
  execFileSync(process.execPath, [join(__dirname, '../../scripts/build-if-needed.cjs')], {
    stdio: 'inherit',
  });
}
