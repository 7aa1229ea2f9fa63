import { dropFileDatabases } from './databases';
import { deleteKeysWithPrefix, RUN_PREFIX_VARIABLE } from './redis-keys';

/**
 * Runs once after the e2e suite: drops every test file's copy of the template database and
 * deletes the Redis keys of this run (queues, rate limits, deployment claims: every key under
 * the run's prefix), never another run's.
 */
export default async function globalTeardown(): Promise<void> {
  await dropFileDatabases();
  const prefix = process.env[RUN_PREFIX_VARIABLE];
  if (prefix !== undefined) await deleteKeysWithPrefix(prefix);
}
