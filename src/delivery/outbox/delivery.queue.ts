import type { QueuedDelivery } from '../deliveries';

export type { QueuedDelivery };
import type { BackoffStrategy } from 'bullmq';

/** The BullMQ queue of delivery attempts. */
export const DELIVERY_QUEUE = 'webhook-delivery';

/** The name of a job of one delivery ({@link DeliveryJobData}). */
export const DELIVER_JOB = 'deliver';

/** The name of a job of several deliveries to one endpoint ({@link DeliveryBatchJobData}). */
export const DELIVER_BATCH_JOB = 'deliver-batch';

/** The most deliveries one {@link DELIVER_BATCH_JOB} job carries. */
export const DELIVERY_BATCH_SIZE = 50;

/**
 * A job of one delivery: a retry, or a delivery re-queued by the sweeper, or queued alone. Its id
 * is derived from the delivery id ({@link deliveryJobId}), so queuing it twice is a no-op.
 */
export interface DeliveryJobData {
  deliveryId: number;
  /** The deployment whose database holds the delivery (absent on jobs queued by older versions). */
  deployment?: string;
  /** Known when queued, so the worker reads the delivery and its endpoint at once. */
  endpointId?: number;
}

/**
 * A job of the first attempts of up to {@link DELIVERY_BATCH_SIZE} new deliveries to one
 * endpoint, queued together after their commit (docs/reliability.md "Batches"). A delivery
 * whose attempt fails with retries left is queued again as a job of its own.
 */
export interface DeliveryBatchJobData {
  deliveryIds: number[];
  endpointId: number;
  deployment: string;
}

/**
 * The Redis keys of endpoint `endpointId`'s throttle in deployment namespace `namespace`
 * (docs/webhooks.md#throttling), one hash tag per endpoint so that its script's keys share a
 * cluster slot: its state (hash), its in-flight leases, its waiters' reserved turns (`tickets`)
 * and the jobs it put back (`held`, sorted sets). Pure.
 */
export function throttleKeys(
  namespace: string,
  endpointId: number,
): { state: string; leases: string; tickets: string; held: string } {
  const state = `{${namespace}:endpoint:${endpointId}}:throttle`;
  return {
    state,
    leases: `${state}:leases`,
    tickets: `${state}:tickets`,
    held: `${state}:held`,
  };
}

/** BullMQ job id of a delivery (custom ids must not be bare integers). */
export function deliveryJobId(deliveryId: number): string {
  return `delivery-${deliveryId}`;
}

/**
 * BullMQ job id of a batch of deliveries (ascending ids, as committed): the same batch queued
 * twice (a retried enqueue) is one job.
 */
export function deliveryBatchJobId(deliveryIds: readonly number[]): string {
  return `deliveries-${deliveryIds[0]}-${deliveryIds[deliveryIds.length - 1]}-${deliveryIds.length}`;
}

/**
 * Splits committed deliveries into jobs: per endpoint, in the order given, at most
 * {@link DELIVERY_BATCH_SIZE} to a job. Pure; exported for its unit test.
 * @returns each job's endpoint and delivery ids.
 */
export function batchByEndpoint(
  deliveries: readonly QueuedDelivery[],
): Array<{ endpointId: number; deliveryIds: number[] }> {
  const byEndpoint = new Map<number, number[]>();
  for (const { id, endpointId } of deliveries) {
    const ids = byEndpoint.get(endpointId) ?? [];
    ids.push(id);
    byEndpoint.set(endpointId, ids);
  }
  const batches: Array<{ endpointId: number; deliveryIds: number[] }> = [];
  for (const [endpointId, ids] of byEndpoint) {
    for (let i = 0; i < ids.length; i += DELIVERY_BATCH_SIZE) {
      batches.push({ endpointId, deliveryIds: ids.slice(i, i + DELIVERY_BATCH_SIZE) });
    }
  }
  return batches;
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
