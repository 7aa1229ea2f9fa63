import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { FailedAuthenticationLimiter } from '../auth';
import { RedisThrottlerStorage } from './redis-throttler.storage';

const WINDOW_MS = 60_000;

/**
 * Counts failed bearer authentications per client IP in Redis, in one-minute windows shared by
 * every API process (`RATE_LIMIT_AUTH_FAILURES_PER_MIN`); fails open without Redis, like the
 * other limits (docs/security.md "Failed authentications").
 */
@Injectable()
export class RedisFailedAuthenticationLimiter implements FailedAuthenticationLimiter {
  constructor(
    private readonly storage: RedisThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  /** @returns seconds until the window ends when `ip` is over the limit, else 0. */
  async hit(ip: string): Promise<number> {
    const limit = this.config.rateLimitAuthFailuresPerMin;
    const record = await this.storage.increment(`auth-failures:${ip}`, WINDOW_MS, limit);
    return record.isBlocked ? record.timeToBlockExpire : 0;
  }
}
