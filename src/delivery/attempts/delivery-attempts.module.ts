import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../../audit';
import { WebhookEndpointsModule } from '../../webhooks';
import { DeliveryAnalyticsModule } from '../analytics';
import { DeliveriesModule } from '../deliveries';
import { DeliverySendingModule } from '../sending';
import { AttemptLog } from './attempt-log.service';
import { AttemptPartitionsRepository } from './attempt-partitions.repository';
import { AttemptPartitions } from './attempt-partitions.service';
import { AttemptRunner } from './attempt.runner';
import { AttemptsRepository } from './attempts.repository';
import { DeliveryLogRepository } from './delivery-log.repository';
import { DeliveryService } from './delivery.service';
import { TransformationTrials } from './transformation-trials.service';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';

/**
 * Delivery attempts (docs/webhooks.md), without the queue: the owner of
 * `webhook_delivery_attempt` and its daily partitions, the attempt log, the attempt runner, the
 * delivery log, and the operator's attempts (`redeliver`, `ping`, the delivery log, the ledger).
 * {@link DeliveryService} is its face, for the CLI, the dashboard, the worker and the retention
 * pass. What the CLI loads for those commands; it never loads BullMQ.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookDeliveryAttempt]),
    DeliveriesModule,
    DeliveryAnalyticsModule,
    DeliverySendingModule,
    WebhookEndpointsModule,
    AuditModule,
  ],
  providers: [
    AttemptsRepository,
    DeliveryLogRepository,
    AttemptPartitionsRepository,
    AttemptPartitions,
    AttemptLog,
    AttemptRunner,
    DeliveryService,
    TransformationTrials,
  ],
  exports: [DeliveryService],
})
export class DeliveryAttemptsModule {}
