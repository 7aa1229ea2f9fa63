import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DeliveryModule } from '../delivery/outbox';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';

/** `/health/live` and `/health/ready` (docs/operations.md). */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), DeliveryModule],
  controllers: [HealthController],
  providers: [RedisHealthIndicator],
})
export class HealthModule {}
