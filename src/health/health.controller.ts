import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckResult,
  HealthCheckService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Public } from '../auth';
import { RedisHealthIndicator } from './redis.health';

/**
 * Liveness and readiness (docs/operations.md), outside `/api/v1` and without authentication.
 * Readiness answers 503 (in the error envelope) while PostgreSQL or Redis is unreachable.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  /** 200 `{status: "ok"}` while the process serves requests. */
  @Public()
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** 200 with per-dependency detail when PostgreSQL and Redis answer within 1.5 s; else 503. */
  @Public()
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.database.pingCheck('database').withTimeout(1500),
      () => this.redis.pingCheck('redis', 1500),
    ]);
  }
}
