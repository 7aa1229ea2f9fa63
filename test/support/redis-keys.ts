import Redis from 'ioredis';

/**
 * The start of every Redis key an e2e run writes: each test file's `QUEUE_PREFIX`
 * (test/support/env.ts) begins with it, and so does every prefix a test derives from that
 * (`…-cli`, `…-readme`, `…-throttle`). Set by global-setup.ts for the run's worker processes;
 * a file run alone without it gets one of its own.
 */
export const RUN_PREFIX_VARIABLE = 'TEST_REDIS_RUN_PREFIX';

/** A new run prefix: `test-<time>-<random>`, unlike any other run's on the same Redis. */
export function newRunPrefix(): string {
  return `test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Deletes the keys of the Redis at `url` that match any of `patterns` (SCAN and UNLINK in
 * batches, so it never blocks Redis).
 * @returns how many keys it deleted.
 */
export async function deleteMatchingKeys(url: string, patterns: string[]): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  let deleted = 0;
  try {
    await redis.connect();
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) deleted += await redis.unlink(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/**
 * Deletes every key of the test Redis (`REDIS_URL`, else 127.0.0.1:6379) whose name starts
 * with `prefix`, also within a hash tag (`{prefix…}:…`, BullMQ's keys). Keys of other runs
 * and of other prefixes are left alone.
 * @returns how many keys it deleted.
 */
export async function deleteKeysWithPrefix(prefix: string): Promise<number> {
  if (!/^test-[A-Za-z0-9-]+$/.test(prefix)) throw new Error(`not a test key prefix: ${prefix}`);
  return deleteMatchingKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', [
    `${prefix}*`,
    `{${prefix}*`,
  ]);
}
