import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookEndpointsModule } from '../webhooks/webhook-endpoints.module';
import { AttemptLog } from './attempt-log';
import { AttemptRunner } from './attempt-runner';
import { DeliveryRepository } from './delivery.repository';
import { DeliveryService } from './delivery.service';
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
    TypeOrmModule.forFeature([WebhookEvent, WebhookDelivery, WebhookDeliveryAttempt]),
    WebhookEndpointsModule,
  ],
  providers: [DeliveryRepository, AttemptLog, AttemptRunner, DeliveryService, WebhookSender],
  exports: [DeliveryRepository, AttemptLog, AttemptRunner, DeliveryService, WebhookEndpointsModule],
})
export class DeliveryAttemptsModule {}
