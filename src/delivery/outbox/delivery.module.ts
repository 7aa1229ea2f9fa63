import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { WebhookEndpointsModule } from '../../webhooks';
import { DeliveriesModule } from '../deliveries';
import { DeliveryQueueJobs } from './delivery-queue-jobs.service';
import { DELIVERY_QUEUE } from './delivery.queue';
import { DeliveryDispatcher } from './delivery.dispatcher';
import { WebhookEventPublisher } from './webhook-event.publisher';

/**
 * Recording and dispatching events (docs/webhooks.md): the outbox publisher any module calls
 * inside its transaction (docs/architecture.md#publishing-events), and the queue it dispatches
 * to. {@link WebhookEventPublisher} is its face. Needs `QueueRootModule` at the root of the
 * process. The rows are `DeliveriesModule`'s.
 */
@Module({
  imports: [
    DeliveriesModule,
    WebhookEndpointsModule,
    BullModule.registerQueue({ name: DELIVERY_QUEUE }),
  ],
  providers: [WebhookEventPublisher, DeliveryDispatcher, DeliveryQueueJobs],
  // The queue is registered once here; importers share its connection.
  exports: [WebhookEventPublisher, BullModule],
})
export class DeliveryModule {}
