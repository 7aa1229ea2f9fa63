import { Logger, OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { Cluster, Redis } from 'ioredis';
import { createRedisClient, type RedisTarget } from '../redis/redis-connection';
import { WindowLeases, type Reservation } from './window-leases';

/**
 * One round trip: reserve up to ARGV[1] hits of a window of ARGV[3] ms under a limit of
 * ARGV[2], never past the limit. Returns the counter before the reservation, the hits granted
 * and the window's time left (ms).
 */
const RESERVE_SCRIPT = `
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
local granted = math.max(0, math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - before))
if granted > 0 then redis.call('INCRBY', KEYS[1], granted) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('SET', KEYS[1], before + granted, 'PX', ARGV[3])
  ttl = tonumber(ARGV[3])
end
return { before, granted, ttl }`;

type ReservingRedis = (Redis | Cluster) & {
  reserveHits(key: string, want: number, limit: number, ttlMs: number): Promise<number[]>;
};

/**
 * @nestjs/throttler storage in Redis, so limits hold across every API process
 * (docs/api.md#rate-limits). Fixed windows of the throttler's `ttl`, counted in blocks
 * ({@link WindowLeases}): one round trip per block of hits rather than per hit, and all
 * processes together never admit more than the limit in a window. When Redis cannot be
 * reached the request is let through and a warning logged (at most one every 10 s): rate
 * limiting fails open rather than taking the API down with it.
 *
 * Each counter is one key (`<namespace>:rate:<throttler>:<tracker>`) and the script touches
 * only that key, so on a Redis Cluster the counters spread over the slots (no hash tag needed).
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: ReservingRedis;
  private readonly leases: WindowLeases;
  private lastWarningAt = 0;

  constructor(
    target: RedisTarget,
    private readonly keyPrefix: string,
  ) {
    this.redis = createRedisClient(target, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    }) as ReservingRedis;
    this.redis.on('error', () => undefined);
    // EVALSHA with the script loaded once, not the script's text on every call.
    this.redis.defineCommand('reserveHits', { numberOfKeys: 1, lua: RESERVE_SCRIPT });
    this.leases = new WindowLeases((key, want, limit, ttlMs) =>
      this.reserve(key, want, limit, ttlMs),
    );
  }

  /**
   * Counts one hit of `key` under `limit` hits per `ttl` ms.
   * @returns the throttler's record: the hit's position in the window, whether it is over the
   *   limit, and the seconds left in the window (at least 1).
   */
  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    try {
      const hit = await this.leases.hit(key, limit, ttl);
      const secondsLeft = Math.max(1, Math.ceil(hit.msLeft / 1000));
      return {
        totalHits: hit.totalHits,
        timeToExpire: secondsLeft,
        isBlocked: hit.isBlocked,
        timeToBlockExpire: hit.isBlocked ? secondsLeft : 0,
      };
    } catch (error) {
      this.warn(`Rate limit not applied, Redis unavailable: ${(error as Error).message}`);
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  /** Forgets the counter of `key`, here and in Redis (no-op without Redis). */
  async reset(key: string): Promise<void> {
    this.leases.forget(key);
    try {
      await this.redis.del(this.redisKey(key));
    } catch (error) {
      this.warn(`Rate limit not reset, Redis unavailable: ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.redis.disconnect();
  }

  private async reserve(
    key: string,
    want: number,
    limit: number,
    ttlMs: number,
  ): Promise<Reservation> {
    const [before, granted, windowMs] = await this.redis.reserveHits(
      this.redisKey(key),
      want,
      limit,
      ttlMs,
    );
    return { before, granted, windowMs };
  }

  private redisKey(key: string): string {
    return `${this.keyPrefix}:rate:${key}`;
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarningAt < 10_000) return;
    this.lastWarningAt = now;
    this.logger.warn(message);
  }
}
