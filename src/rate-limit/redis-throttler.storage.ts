import { Logger, OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import IORedis, { type Redis } from 'ioredis';

/** One round trip: count a hit in a fixed window of `ttl` ms and return the count and the window's time left. */
const INCREMENT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { hits, ttl }`;

/**
 * @nestjs/throttler storage in Redis, so limits hold across every API process (docs/configuration.md).
 * Fixed windows: a key's counter lives for the throttler's `ttl`. (The community Redis storage
 * declares no support for Nest 12, hence this small one.) When Redis cannot be reached the
 * request is let through and a warning logged: rate limiting fails open rather than taking
 * the API down with it.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: Redis;

  constructor(
    redisUrl: string,
    private readonly keyPrefix: string,
  ) {
    this.redis = new IORedis(redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    });
    this.redis.on('error', () => undefined);
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    try {
      const [hits, ttlMs] = (await this.redis.eval(
        INCREMENT_SCRIPT,
        1,
        `${this.keyPrefix}:rate:${key}`,
        ttl,
      )) as [number, number];
      const secondsLeft = Math.max(1, Math.ceil(ttlMs / 1000));
      const isBlocked = hits > limit;
      return {
        totalHits: hits,
        timeToExpire: secondsLeft,
        isBlocked,
        timeToBlockExpire: isBlocked ? secondsLeft : 0,
      };
    } catch (error) {
      this.logger.warn(`Rate limit not applied, Redis unavailable: ${(error as Error).message}`);
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  /** Forgets the counter of `key` (no-op without Redis). */
  async reset(key: string): Promise<void> {
    try {
      await this.redis.del(`${this.keyPrefix}:rate:${key}`);
    } catch (error) {
      this.logger.warn(`Rate limit not reset, Redis unavailable: ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.redis.disconnect();
  }
}
