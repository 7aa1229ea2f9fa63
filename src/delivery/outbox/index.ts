/** The face of `src/delivery/outbox/`: the publisher's module, the queue and its vocabulary. */
export { DeliveryModule } from './delivery.module';
export {
  WebhookEventPublisher,
  leadIdOf,
  type EventInput,
  type RecordedEvent,
  type RecordedEvents,
} from './webhook-event.publisher';
// The process's shutdown drains it (`shutdownSequence`); other code goes through the publisher.
export { DeliveryDispatcher } from './delivery.dispatcher';
export {
  DELIVER_BATCH_JOB,
  DELIVER_JOB,
  DELIVERY_BATCH_SIZE,
  DELIVERY_QUEUE,
  DeliveryRetryError,
  deliveryBackoff,
  deliveryBatchJobId,
  deliveryJobId,
  throttleKeys,
  type DeliveryBatchJobData,
  type DeliveryJobData,
  type QueuedDelivery,
} from './delivery.queue';
