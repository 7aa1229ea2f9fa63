import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { AppConfig } from '../../config/app-config';
import { DeploymentIdentity } from '../../database/deployment-identity';
import {
  DELIVER_BATCH_JOB,
  DELIVERY_QUEUE,
  deliveryBackoff,
  type DeliveryBatchJobData,
  type DeliveryJobData,
} from '../outbox';
import {
  NotDueError,
  ScheduledAttempts,
  type AttemptOutcome,
  type BatchOutcome,
} from './scheduled-attempts.service';

/** How long a foreign job is put back before a worker looks at it again, in ms. */
const FOREIGN_JOB_DELAY_MS = 5_000;

/** Past `WEBHOOK_TIMEOUT_MS`, how long the attempts under way have to be recorded, in ms. */
const RECORDING_MARGIN_MS = 5_000;

/** After its Redis connections are cut, how long a stuck worker gets to finish closing, in ms. */
const CUT_CLOSE_WAIT_MS = 2_000;

/** Whether `promise` settles within `ms`; it goes on either way. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = promise.then(
    () => true,
    () => true,
  );
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The delivery worker (docs/webhooks.md, docs/reliability.md "Batches"): a batch job runs the
 * first attempts of up to 50 new deliveries to one endpoint; a delivery job runs one attempt of
 * one delivery, and a failed attempt throws, so BullMQ's retry runs on
 * `WEBHOOK_RETRY_SCHEDULE`. Up to `WEBHOOK_WORKER_CONCURRENCY` jobs run at once, and as many
 * attempts. The job lock (15 s, renewed every 7.5 s while the worker lives) lets another worker
 * take over a killed worker's jobs within about 20 s (docs/reliability.md "Duplicates").
 */
@Processor(DELIVERY_QUEUE, {
  concurrency: 200,
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
   * Runs a job's attempts. A job of another deployment (possible only when two deployments were
   * forced onto one `QUEUE_PREFIX`) is never completed here: it is put back, delayed, and an
   * error is logged; so is a delivery job whose delivery is not due yet, until it is, and a
   * job held back by its endpoint's throttle (a batch keeps only the deliveries held back), for
   * as long as the throttle says (docs/webhooks.md#throttling).
   */
  async process(
    job: Job<DeliveryJobData | DeliveryBatchJobData>,
    token?: string,
  ): Promise<AttemptOutcome | BatchOutcome> {
    const owner = job.data.deployment;
    if (owner !== undefined && owner !== this.deployment.id) {
      this.logger.error(
        `Job ${job.id} belongs to deployment ${owner}, not ${this.deployment.id}: put back. ` +
          `Two deployments share QUEUE_PREFIX "${this.deployment.queuePrefix}"; give each its own.`,
      );
      await job.moveToDelayed(Date.now() + FOREIGN_JOB_DELAY_MS, token);
      throw new DelayedError();
    }
    // Ran before and failed, or was taken over from a stopped worker; a job put back because
    // its delivery was not due (NotDueError) did not run before.
    const resumed = job.attemptsMade > 0 || job.stalledCounter > 0;
    if (job.name === DELIVER_BATCH_JOB) {
      const { deliveryIds, endpointId } = job.data as DeliveryBatchJobData;
      const outcome = await this.scheduled.runBatch(deliveryIds, endpointId, resumed, job.id);
      if (outcome.left > 0) {
        // Stopping: what was not started goes back to the queue for another worker at once.
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      if (!outcome.putBack) return outcome;
      // Held back by the endpoint's throttle: the job keeps only those, and waits as long as
      // the throttle says, without holding a worker slot (docs/webhooks.md#throttling).
      const { deliveryIds: heldBack, waitMs } = outcome.putBack;
      await job.updateData({ ...(job.data as DeliveryBatchJobData), deliveryIds: heldBack });
      await job.moveToDelayed(Date.now() + waitMs, token);
      throw new DelayedError();
    }
    const { deliveryId, endpointId } = job.data as DeliveryJobData;
    try {
      return await this.scheduled.run(deliveryId, endpointId, resumed, job.id);
    } catch (error) {
      if (!(error instanceof NotDueError)) throw error;
      await job.moveToDelayed(Date.now() + error.waitMs, token);
      throw new DelayedError();
    }
  }

  /**
   * Stops taking jobs and waits for the attempts under way to finish and be recorded
   * (shutdown, step 2 of docs/reliability.md "Shutdown"), for at most `WEBHOOK_TIMEOUT_MS` + 5 s.
   * BullMQ's own close can wait forever on a Redis connection that never reports its end (a
   * Redis Cluster node restarted just before, or Redis unreachable: taskforcesh/bullmq#4656);
   * past the bound, the attempts under way were answered or timed out, so the worker's Redis
   * connections are cut (a warning is logged) and its close gets 2 s more. Never throws.
   */
  async stopTakingJobs(): Promise<void> {
    this.scheduled.stopStartingAttempts();
    const closing = this.worker.close();
    const boundMs = this.config.webhookTimeoutMs + RECORDING_MARGIN_MS;
    if (await settlesWithin(closing, boundMs)) return;
    this.logger.warn(
      `The delivery worker had not stopped ${boundMs} ms after shutdown began ` +
        '(its Redis connection never closed): cutting its Redis connections',
    );
    this.worker.disconnect().catch(() => undefined);
    await settlesWithin(closing, CUT_CLOSE_WAIT_MS);
  }

  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.logger.warn(`Delivery worker error: ${error.message}`);
  }
}
