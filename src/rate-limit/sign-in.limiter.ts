import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** The window dashboard sign-in attempts are counted in: 15 minutes (docs/dashboard.md#sessions). */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/**
 * Limits dashboard sign-in attempts (docs/dashboard.md#sessions) per client IP
 * (`RATE_LIMIT_SIGN_IN_PER_IP`, default 50) and per email (`RATE_LIMIT_SIGN_IN_PER_EMAIL`,
 * default 10) in fixed 15-minute windows in Redis, shared by every API process. Every attempt
 * counts, before its credentials are checked, so a locked-out email answers the same whether
 * a user has it or not; a successful sign-in clears its email's counter. Emails are counted
 * case-insensitively, under their SHA-256 (no address in Redis). Like the other limits it
 * fails open without Redis (docs/security.md).
 */
@Injectable()
export class SignInLimiter {
  constructor(
    private readonly storage: RedisThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  /**
   * Counts one attempt of `email` from `ip`.
   * @returns seconds until the attempt may be retried when either limit is exceeded, else 0.
   */
  async hit(ip: string, email: string): Promise<number> {
    const [byIp, byEmail] = await Promise.all([
      this.storage.increment(
        `sign-in:ip:${ip}`,
        SIGN_IN_WINDOW_MS,
        this.config.rateLimitSignInPerIp,
      ),
      this.storage.increment(
        `sign-in:email:${emailCounterKey(email)}`,
        SIGN_IN_WINDOW_MS,
        this.config.rateLimitSignInPerEmail,
      ),
    ]);
    return Math.max(byIp.timeToBlockExpire, byEmail.timeToBlockExpire);
  }

  /** Clears the counter of `email` after a successful sign-in (the IP's counter stays). */
  async succeeded(email: string): Promise<void> {
    await this.storage.reset(`sign-in:email:${emailCounterKey(email)}`);
  }
}

/** The email's counter name: SHA-256 of the trimmed, lower-cased address. */
function emailCounterKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase(), 'utf8').digest('hex');
}
