import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DELIVERY_QUEUE } from './delivery-queue';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DeliveryRepository } from './delivery.repository';
import { DeliveryService } from './delivery.service';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt.entity';
import { WebhookEvent } from './webhook-event.entity';
import { WebhookEventPublisher } from './webhook-event.publisher';
import { WebhookSender } from './webhook-sender';
import { AttemptLog } from './attempt-log';
import { DeliveryProcessor } from './delivery.processor';
import { DeliverySweeper } from './delivery-sweeper';

/**
 * Recording and dispatching events (docs/webhooks.md): the outbox publisher any module calls inside
 * its transaction, the queue, the signed sender, and the operator's delivery operations.
 * Needs `QueueRootModule` at the root of the process.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEvent, WebhookDelivery, WebhookDeliveryAttempt]),
    BullModule.registerQueue({ name: DELIVERY_QUEUE }),
    WebhooksModule,
  ],
  providers: [
    WebhookEventPublisher,
    DeliveryDispatcher,
    DeliveryRepository,
    DeliveryService,
    WebhookSender,
    AttemptLog,
  ],
  // The queue is registered once here; importers share its connection.
  exports: [
    WebhookEventPublisher,
    DeliveryService,
    DeliveryDispatcher,
    DeliveryRepository,
    AttemptLog,
    BullModule,
  ],
})
export class DeliveryModule {}

/** The delivery worker and the sweeper: in the API process when `RUN_WORKER`, and in `worker.ts`. */
@Module({
  imports: [DeliveryModule],
  providers: [DeliveryProcessor, DeliverySweeper],
})
export class DeliveryWorkerModule {}
