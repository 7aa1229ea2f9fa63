import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../audit/audit.module';
import { WebhookEndpointsModule } from '../../webhooks/webhook-endpoints.module';
import { AttemptLog } from './attempt-log.service';
import { AttemptPartitionsRepository } from '../retention/attempt-partitions.repository';
import { AttemptPartitions } from '../retention/attempt-partitions.service';
import { AttemptRunner } from '../worker/attempt.runner';
import { AttemptsRepository } from './attempts.repository';
import { DeliveryLogRepository } from './delivery-log.repository';
import { DeliveryReadsRepository } from '../outbox/delivery-reads.repository';
import { WebhookDeliveriesRepository } from '../outbox/webhook-deliveries.repository';
import { DeliveryRollupRepository } from '../analytics/delivery-rollup.repository';
import { EndpointDeliveryRollup } from '../analytics/endpoint-delivery-rollup.entity';
import { DeliveryService } from './delivery.service';
import { DeliveryStatsService } from '../analytics/delivery-stats.service';
import { WebhookDelivery } from '../outbox/webhook-delivery.entity';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookEvent } from '../outbox/webhook-event.entity';
import { WebhookSender } from '../worker/webhook.sender';
import { WebhookEventsRepository } from '../outbox/webhook-events.repository';
import { EventRetention } from '../outbox/event-retention.service';
import { RollupRetention } from '../analytics/rollup-retention.service';

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
    AttemptPartitionsRepository,
    AttemptPartitions,
    AttemptsRepository,
    DeliveryLogRepository,
    DeliveryReadsRepository,
    WebhookDeliveriesRepository,
    DeliveryRollupRepository,
    DeliveryStatsService,
    AttemptLog,
    AttemptRunner,
    DeliveryService,
    WebhookSender,
    WebhookEventsRepository,
    EventRetention,
    RollupRetention,
  ],
  exports: [
    AttemptPartitionsRepository,
    AttemptPartitions,
    DeliveryReadsRepository,
    WebhookDeliveriesRepository,
    WebhookEventsRepository,
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
