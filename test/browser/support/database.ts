import { Client } from 'pg';
import { TEST_DATABASE_URL } from '../../support/env';

/**
 * Rows of `sql` on this test file's database (the one the service under test runs on), for a
 * browser test to check what a page's action stored.
 */
export async function queryDatabase<T = Record<string, unknown>>(
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
