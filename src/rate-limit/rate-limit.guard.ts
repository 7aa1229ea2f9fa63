import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { ApiError } from '../common/api-error';

/** Prefix of the metadata keys `@Throttle()` and `@SkipThrottle()` set on a route or controller. */
const THROTTLER_METADATA_PREFIX = 'THROTTLER:';

/**
 * The rate limits of docs/api.md#rate-limits (`@nestjs/throttler`, counted in Redis): token
 * exchanges per client IP, every other request per API key. Runs after the bearer guard, so
 * an authenticated request is counted against its key. Over the limit: 429 `rate_limited`
 * with `Retry-After` in seconds.
 *
 * A route without `@Throttle()` / `@SkipThrottle()` (every route today) takes a short path:
 * whether a route has such metadata is looked up once per handler, not on every request, and
 * the module's limits are applied as configured. A route with them goes through
 * `ThrottlerGuard`'s own per-request resolution, so the decorators keep working.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly decorated = new WeakMap<object, boolean>();

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    let decorated = this.decorated.get(handler);
    if (decorated === undefined) {
      decorated = [handler, context.getClass()].some((target) =>
        Reflect.getMetadataKeys(target).some(
          (key) => typeof key === 'string' && key.startsWith(THROTTLER_METADATA_PREFIX),
        ),
      );
      this.decorated.set(handler, decorated);
    }
    if (decorated) return super.canActivate(context);
    for (const throttler of this.throttlers) {
      if ((throttler.skipIf ?? this.commonOptions.skipIf)?.(context)) continue;
      const { limit, ttl, blockDuration = ttl } = throttler;
      if (
        typeof limit !== 'number' ||
        typeof ttl !== 'number' ||
        typeof blockDuration !== 'number'
      ) {
        return super.canActivate(context); // limits computed per request: the library's path
      }
      await this.handleRequest({
        context,
        limit,
        ttl,
        throttler,
        blockDuration,
        getTracker: throttler.getTracker ?? this.commonOptions.getTracker!,
        generateKey: throttler.generateKey ?? this.commonOptions.generateKey!,
      });
    }
    return true;
  }

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
