import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { ApiError } from '../common/api-error';

/**
 * The rate limits of docs/configuration.md (`@nestjs/throttler`, counted in Redis): token exchanges per
 * client IP, every other request per API key. Runs after the bearer guard, so an
 * authenticated request is counted against its key. Over the limit: 429 `rate_limited` with
 * `Retry-After` in seconds.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new ApiError(
      429,
      'rate_limited',
      `Too many requests: at most ${detail.limit} per minute; retry after ${detail.timeToBlockExpire} s`,
      {
        'Retry-After': String(detail.timeToBlockExpire),
      },
    );
  }
}
