import type { BackoffStrategy, RedisOptions } from 'bullmq';

/** The BullMQ queue of delivery attempts. */
export const DELIVERY_QUEUE = 'webhook-delivery';

/** A job is one delivery; its id is derived from the delivery id, so queuing twice is a no-op. */
export interface DeliveryJobData {
  deliveryId: number;
  /** The deployment whose database holds the delivery (absent on jobs queued by older versions). */
  deployment?: string;
  /** Known when queued, so the worker reads the delivery and its endpoint at once. */
  endpointId?: number;
}

/** A committed delivery to queue. */
export interface QueuedDelivery {
  id: number;
  endpointId: number;
}

/** BullMQ job id of a delivery (custom ids must not be bare integers). */
export function deliveryJobId(deliveryId: number): string {
  return `delivery-${deliveryId}`;
}

/**
 * Thrown by the processor after a failed attempt that will be retried: BullMQ's retry runs
 * after `delayMs` (the `WEBHOOK_RETRY_SCHEDULE` entry for this attempt).
 */
export class DeliveryRetryError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = 'DeliveryRetryError';
  }
}

/** Backoff for delivery jobs: the delay the failed attempt asked for (5 s for unexpected errors). */
export const deliveryBackoff: BackoffStrategy = (_attemptsMade, _type, error) =>
  error instanceof DeliveryRetryError ? error.delayMs : 5_000;

/** BullMQ connection options for `REDIS_URL` (workers need `maxRetriesPerRequest: null`). */
export function redisOptionsFromUrl(redisUrl: string): RedisOptions {
  return { url: redisUrl, maxRetriesPerRequest: null };
}
