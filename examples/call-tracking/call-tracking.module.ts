import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveryModule } from '../../src/delivery/outbox';
import { CallLog } from './call-log.entity';
import { CallLogRepository } from './call-log.repository';
import { CallLogService } from './call-log.service';

/**
 * EXAMPLE ONLY, not part of the shipped service (docs/architecture.md#worked-example-call-tracking):
 * a domain module that owns the `call_log` table and announces completed calls as
 * `call.completed` webhook events. It imports {@link DeliveryModule} for
 * `WebhookEventPublisher`; the process that loads it must also load `ConfigModule`,
 * `DatabaseModule` and `QueueRootModule` at its root, as the API, worker and CLI do.
 */
@Module({
  imports: [TypeOrmModule.forFeature([CallLog]), DeliveryModule],
  providers: [CallLogRepository, CallLogService],
  exports: [CallLogService],
})
export class CallTrackingModule {}
