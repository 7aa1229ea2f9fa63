import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { DeploymentIdentity } from '../database/deployment-identity';
import { DELIVERY_QUEUE, deliveryBackoff, type DeliveryJobData } from './delivery-queue';
import { ScheduledAttempts, type AttemptOutcome } from './scheduled-attempts';

/** How long a foreign job is put back before a worker looks at it again, in ms. */
const FOREIGN_JOB_DELAY_MS = 5_000;

/**
 * The delivery worker (docs/webhooks.md): one job is one attempt of one delivery. A failed attempt
 * throws, so BullMQ's retry runs on `WEBHOOK_RETRY_SCHEDULE`. The job lock (15 s, renewed
 * every 7.5 s while the worker lives) lets another worker take over a killed worker's jobs
 * within about 20 s (docs/reliability.md "Duplicates").
 */
@Processor(DELIVERY_QUEUE, {
  concurrency: 50,
  lockDuration: 15_000,
  stalledInterval: 5_000,
  maxStalledCount: 1_000,
  settings: { backoffStrategy: deliveryBackoff },
})
export class DeliveryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(DeliveryProcessor.name);

  constructor(
    private readonly scheduled: ScheduledAttempts,
    private readonly config: AppConfig,
    private readonly deployment: DeploymentIdentity,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhookWorkerConcurrency;
  }

  /**
   * Runs one attempt. A job of another deployment (possible only when two deployments were
   * forced onto one `QUEUE_PREFIX`) is never completed here: it is put back, delayed, and an
   * error is logged.
   */
  async process(job: Job<DeliveryJobData>, token?: string): Promise<AttemptOutcome> {
    const owner = job.data.deployment;
    if (owner !== undefined && owner !== this.deployment.id) {
      this.logger.error(
        `Job ${job.id} belongs to deployment ${owner}, not ${this.deployment.id}: put back. ` +
          `Two deployments share QUEUE_PREFIX "${this.deployment.queuePrefix}"; give each its own.`,
      );
      await job.moveToDelayed(Date.now() + FOREIGN_JOB_DELAY_MS, token);
      throw new DelayedError();
    }
    return this.scheduled.run(job.data.deliveryId, job.data.endpointId, job.attemptsStarted > 1);
  }

  /**
   * Stops taking jobs and waits for the attempts under way to finish and be recorded
   * (shutdown, step 2 of docs/reliability.md "Shutdown").
   */
  async stopTakingJobs(): Promise<void> {
    await this.worker.close();
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.logger.warn(`Delivery worker error: ${error.message}`);
  }
}
