import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { WebhookEndpointsModule } from '../webhooks/webhook-endpoints.module';
import { AttemptLog } from './attempt-log';
import { AttemptPartitions } from './attempt-partitions';
import { AttemptRunner } from './attempt-runner';
import { DeliveryRepository } from './delivery.repository';
import { DeliveryRollupRepository } from './delivery-rollup.repository';
import { EndpointDeliveryRollup } from './endpoint-delivery-rollup.entity';
import { DeliveryService } from './delivery.service';
import { DeliveryStatsService } from './delivery-stats';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookEvent } from './webhook-event.entity';
import { WebhookSender } from './webhook-sender';

/**
 * Sending and recording delivery attempts (docs/webhooks.md), without the queue: the signed
 * sender, the attempt log, and the operator's attempts (`redeliver`, `ping`, the delivery
 * log). What the CLI loads for those commands; it never loads BullMQ.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      WebhookEvent,
      WebhookDelivery,
      WebhookDeliveryAttempt,
      EndpointDeliveryRollup,
    ]),
    WebhookEndpointsModule,
    AuditModule,
  ],
  providers: [
    AttemptPartitions,
    DeliveryRepository,
    DeliveryRollupRepository,
    DeliveryStatsService,
    AttemptLog,
    AttemptRunner,
    DeliveryService,
    WebhookSender,
  ],
  exports: [
    AttemptPartitions,
    DeliveryRepository,
    DeliveryRollupRepository,
    DeliveryStatsService,
    AttemptLog,
    AttemptRunner,
    DeliveryService,
    WebhookEndpointsModule,
    WebhookSender,
  ],
})
export class DeliveryAttemptsModule {}
