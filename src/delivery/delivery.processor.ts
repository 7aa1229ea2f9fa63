import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { DELIVERY_QUEUE, deliveryBackoff, type DeliveryJobData } from './delivery-queue';
import { DeliveryService, type AttemptOutcome } from './delivery.service';

/**
 * The delivery worker (CONTRACT 6): one job is one attempt of one delivery. A failed attempt
 * throws, so BullMQ's retry runs on `WEBHOOK_RETRY_SCHEDULE`. The lock (90 s, renewed while the
 * job runs) outlasts the HTTP limit (at most 60 s), so no attempt ever runs twice at once.
 */
@Processor(DELIVERY_QUEUE, {
  concurrency: 50,
  lockDuration: 90_000,
  maxStalledCount: 5,
  settings: { backoffStrategy: deliveryBackoff },
})
export class DeliveryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(DeliveryProcessor.name);

  constructor(
    private readonly deliveries: DeliveryService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhookWorkerConcurrency;
  }

  process(job: Job<DeliveryJobData>): Promise<AttemptOutcome> {
    return this.deliveries.attemptScheduled(job.data.deliveryId, job.data.endpointId);
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.logger.warn(`Delivery worker error: ${error.message}`);
  }
}
