import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { TEMPLATE_DATABASE_URL } from './env';
import { dropDatabase, dropFileDatabases } from './databases';
import { prepareDatabase } from '../../src/database/prepare-database';
import { newRunPrefix, RUN_PREFIX_VARIABLE } from './redis-keys';

/**
 * Runs once before the e2e suite: drops the copies a previous run left, recreates the
 * template database from the committed migrations (so every run starts from the schema
 * production gets), and builds dist/ when it is stale, for the tests that run the compiled
 * CLI and processes. It also picks the run's Redis key prefix (redis-keys.ts), which the test
 * files' worker processes inherit and global-teardown.ts clears.
 */
export default async function globalSetup(): Promise<void> {
  process.env[RUN_PREFIX_VARIABLE] = newRunPrefix();
  await dropFileDatabases();
  await dropDatabase(TEMPLATE_DATABASE_URL);
  await prepareDatabase(TEMPLATE_DATABASE_URL);
  execFileSync(process.execPath, [join(__dirname, '../../scripts/build-if-needed.cjs')], {
    stdio: 'inherit',
  });
}
