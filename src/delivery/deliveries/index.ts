/** The face of `src/delivery/deliveries/`: the events and deliveries tables' module. */
export { DeliveriesModule } from './deliveries.module';
export { Deliveries } from './deliveries.service';
export { WebhookEvent } from './webhook-event.entity';
export {
  WebhookDelivery,
  type DeliveryStatus,
  type DeliveryStatusReason,
} from './webhook-delivery.entity';
export type { QueuedDelivery } from './queued-delivery';
export type { DeliveryWork, OverdueDelivery } from './delivery-reads.repository';
export type { DeliveryMove, DeliveryPair } from './webhook-deliveries.repository';
export type { NewEvent } from './webhook-events.repository';
export type { FilteredCount } from './filtered-events.repository';
