import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Deliveries } from './deliveries.service';
import { DeliveryReadsRepository } from './delivery-reads.repository';
import { EndpointFilteredDay } from './endpoint-filtered-day.entity';
import { EventRetention } from './event-retention.service';
import { FilteredEventsRepository } from './filtered-events.repository';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEvent } from './webhook-event.entity';
import { WebhookEventsRepository } from './webhook-events.repository';

/**
 * The owner of `webhook_event`, `webhook_delivery` and `endpoint_filtered_day`
 * (docs/webhooks.md#events, docs/webhooks.md#payload-filters): the outbox's rows, without the queue, so the CLI's operator commands load it without BullMQ. Other
 * modules go through {@link Deliveries}. Its `EventRetention` is found by the retention pass.
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEvent, WebhookDelivery, EndpointFilteredDay])],
  providers: [
    WebhookEventsRepository,
    WebhookDeliveriesRepository,
    DeliveryReadsRepository,
    FilteredEventsRepository,
    EventRetention,
    Deliveries,
  ],
  exports: [Deliveries],
})
export class DeliveriesModule {}
