import IORedis from 'ioredis';
import { Client } from 'pg';
import { deleteMatchingKeys } from '../../support/redis-keys';
import { PG_SERVER_URL, REDIS_SERVER_URL } from './config';

/** `postgres://…/<database>` on the machine's server, or on `host` (a proxy's `127.0.0.1:port`). */
export function databaseUrl(database: string, host?: string): string {
  const url = new URL(PG_SERVER_URL);
  if (host) url.host = host;
  url.pathname = `/${database}`;
  return url.toString();
}

/** `redis://…/<db>` on the machine's server, or on `host` (a proxy). */
export function redisUrl(db: number, host?: string): string {
  const url = new URL(REDIS_SERVER_URL);
  if (host) url.host = host;
  url.pathname = `/${db}`;
  return url.toString();
}

/** Runs `fn` with a client on the server's `postgres` database. */
export async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({
    connectionString: databaseUrl('postgres'),
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Drops a scenario database even while processes (or a killed one's sessions) hold it. */
export async function dropDatabase(name: string): Promise<void> {
  if (!/^campaign_api_fault_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop ${name}`);
  await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Whether a database exists on the machine's server. */
export async function databaseExists(name: string): Promise<boolean> {
  return withAdmin(async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return (rowCount ?? 0) > 0;
  });
}

/** Deletes the keys matching `pattern` in Redis database `db` (SCAN + UNLINK); returns how many. */
export function deleteRedisKeys(db: number, pattern: string): Promise<number> {
  return deleteMatchingKeys(redisUrl(db), [pattern]);
}

/** The key that reserves a Redis database index for one scenario (deleted at its clean-up). */
export const REDIS_CLAIM_KEY = 'fault-suite-claim';

/**
 * Reserves a Redis database index (15 down to 1) holding no key at all, for a scenario that
 * must run with the default QUEUE_PREFIX without meeting (or deleting) the keys of anything
 * else on this Redis: the first empty one gets {@link REDIS_CLAIM_KEY} (15 min TTL), so a
 * concurrent run picks another.
 */
export async function claimEmptyRedisDb(): Promise<number> {
  const redis = new IORedis(redisUrl(0), { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  await redis.connect();
  try {
    const configured = Number(((await redis.config('GET', 'databases')) as string[])[1] ?? 16);
    for (let db = Math.min(configured, 16) - 1; db >= 1; db--) {
      await redis.select(db);
      if ((await redis.dbsize()) !== 0) continue;
      if ((await redis.set(REDIS_CLAIM_KEY, String(process.pid), 'EX', 900, 'NX')) === 'OK')
        return db;
    }
  } finally {
    redis.disconnect();
  }
  throw new Error('no empty Redis database index (1–15) for the default-prefix scenario');
}

/** Fails fast with a readable message when the machine's PostgreSQL or Redis is not there. */
export async function assertStoresReachable(): Promise<void> {
  try {
    await withAdmin((client) => client.query('SELECT 1'));
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${PG_SERVER_URL}: ${(error as Error).message}`);
  }
  const redis = new IORedis(redisUrl(0), {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is not reachable at ${REDIS_SERVER_URL}: ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
}
