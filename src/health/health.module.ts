import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DELIVERY_QUEUE } from '../delivery/delivery-queue';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';

/** `/health/live` and `/health/ready` (CONTRACT 9). */
@Module({
  imports: [
    TerminusModule.forRoot({ logger: false }),
    BullModule.registerQueue({ name: DELIVERY_QUEUE }),
  ],
  controllers: [HealthController],
  providers: [RedisHealthIndicator],
})
export class HealthModule {}
