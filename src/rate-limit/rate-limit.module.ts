import { ExecutionContext, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { DeploymentIdentity } from '../database/deployment-identity';
import type { AuthPrincipal } from '../auth';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { RedisFailedAuthenticationLimiter } from './failed-authentication.limiter';
import { SignInLimiter } from './sign-in.limiter';

type TrackedRequest = FastifyRequest & { user?: AuthPrincipal };
const request = (context: ExecutionContext) => context.switchToHttp().getRequest<TrackedRequest>();
/** The token exchange is the only public route that is rate-limited (by IP). */
const isTokenExchange = (context: ExecutionContext) =>
  request(context).routeOptions?.url === '/api/v1/auth/api-key/token';

/** The Redis storage as a provider, so Nest closes its connection on shutdown. */
@Module({
  providers: [
    {
      provide: RedisThrottlerStorage,
      inject: [AppConfig, DeploymentIdentity],
      useFactory: (config: AppConfig, deployment: DeploymentIdentity) =>
        new RedisThrottlerStorage(config.redis, deployment.queuePrefix),
    },
  ],
  exports: [RedisThrottlerStorage],
})
class RateLimitStorageModule {}

/**
 * Two throttlers over one-minute windows (docs/configuration.md): `token` counts token exchanges per
 * client IP (`RATE_LIMIT_TOKEN_PER_MIN`), `api` counts authenticated requests per API key
 * (`RATE_LIMIT_API_PER_MIN`). Health checks, unknown routes and the dashboard (no API key) are
 * not limited by them. Register {@link RateLimitGuard} as a global guard after the bearer
 * guard. Also provides {@link SignInLimiter}, the dashboard's sign-in limits.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStorageModule],
      inject: [AppConfig, RedisThrottlerStorage],
      useFactory: (config: AppConfig, storage: RedisThrottlerStorage) => ({
        storage,
        // One counter per client IP or API key across all routes (the default is per route).
        generateKey: (_context, tracker, name) => `${name}:${tracker}`,
        throttlers: [
          {
            name: 'token',
            ttl: 60_000,
            limit: config.rateLimitTokenPerMin,
            skipIf: (context) => !isTokenExchange(context),
            getTracker: (req) => (req as TrackedRequest).ip,
          },
          {
            name: 'api',
            ttl: 60_000,
            limit: config.rateLimitApiPerMin,
            skipIf: (context) => request(context).user === undefined,
            getTracker: (req) => `key-${(req as TrackedRequest).user!.apiKeyId}`,
          },
        ],
      }),
    }),
    RateLimitStorageModule,
  ],
  providers: [RedisFailedAuthenticationLimiter, SignInLimiter],
  exports: [RedisFailedAuthenticationLimiter, SignInLimiter],
})
export class RateLimitModule {}
