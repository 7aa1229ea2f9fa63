import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfig } from '../../config/app-config';
import { DeploymentIdentity } from '../../database/deployment-identity';
import {
  batchByEndpoint,
  DELIVER_BATCH_JOB,
  DELIVER_JOB,
  DELIVERY_QUEUE,
  deliveryBatchJobId,
  deliveryJobId,
  throttleKeys,
  type DeliveryBatchJobData,
  type DeliveryJobData,
  type QueuedDelivery,
} from './delivery.queue';

const BULK_CHUNK = 1000;

/**
 * Puts committed deliveries on the BullMQ queue (docs/reliability.md "Batches"): new ones in
 * batches per endpoint, retries and the sweeper's one job each. Job ids are derived from
 * delivery ids, so queuing the same job again (a retry of this call, the sweeper) never
 * doubles it, and a delivery that ends up in two jobs is still attempted once at a time.
 * Completed and failed jobs are removed: PostgreSQL keeps the history.
 */
@Injectable()
export class DeliveryDispatcher implements OnModuleInit {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  private lastConnectionWarning = 0;
  /** Enqueues started after a commit and not yet settled; {@link drain} waits for them. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @InjectQueue(DELIVERY_QUEUE)
    private readonly queue: Queue<DeliveryJobData | DeliveryBatchJobData>,
    private readonly config: AppConfig,
    private readonly deployment: DeploymentIdentity,
  ) {}

  /** Logs Redis connection errors (at most one line per 10 s) instead of BullMQ's console output. */
  onModuleInit(): void {
    this.queue.on('error', (error: Error) => {
      if (Date.now() - this.lastConnectionWarning < 10_000) return;
      this.lastConnectionWarning = Date.now();
      this.logger.warn(`Delivery queue: ${error.message}`);
    });
  }

  /**
   * Queues new deliveries: per endpoint, up to {@link DELIVERY_BATCH_SIZE} to a job
   * ({@link DELIVER_BATCH_JOB}; a lone delivery gets a {@link DELIVER_JOB} job of its own).
   * @throws the Redis error when the queue cannot be reached (the sweeper will re-queue).
   */
  async enqueue(deliveries: QueuedDelivery[]): Promise<void> {
    const jobs = batchByEndpoint(deliveries).map(({ endpointId, deliveryIds }) =>
      deliveryIds.length === 1
        ? this.deliveryJob({ id: deliveryIds[0], endpointId })
        : {
            name: DELIVER_BATCH_JOB,
            data: { deliveryIds, endpointId, deployment: this.deployment.id },
            opts: { ...this.jobOptions(), jobId: deliveryBatchJobId(deliveryIds) },
          },
    );
    await this.addAll(jobs);
  }

  /**
   * Queues deliveries one job each (the sweeper): a delivery whose job is still queued is
   * not queued twice.
   * @throws the Redis error when the queue cannot be reached.
   */
  async requeue(deliveries: QueuedDelivery[]): Promise<void> {
    await this.addAll(deliveries.map((delivery) => this.deliveryJob(delivery)));
  }

  /**
   * Queues the next attempt of a delivery whose attempt in a batch failed, `delayMs` from now
   * (its retry schedule's next step). A job of the delivery already queued (by the sweeper)
   * stays as it is: it waits for the delivery to be due before it attempts.
   * @throws the Redis error when the queue cannot be reached (the sweeper will re-queue).
   */
  async enqueueRetry(delivery: QueuedDelivery, delayMs: number): Promise<void> {
    const job = this.deliveryJob(delivery);
    await this.queue.add(job.name, job.data, { ...job.opts, delay: delayMs });
  }

  /**
   * Makes the jobs of pending deliveries whose next attempt was just made due (a bulk
   * recovery's deliveries waiting on a retry, docs/webhooks.md#bulk-recovery) run now, through
   * each delivery's own job: a delayed one (the retry) is promoted, a delivery without a job gets
   * one (as the sweeper would queue it), and a job already waiting is left to run. No second
   * job is queued beside a delivery's job, so its attempts stay one at a time
   * (docs/reliability.md "One scheduled attempt at a time").
   * @returns the deliveries whose job was being processed: it may be attempting the delivery
   *   now, or putting it back until its old time; the caller looks at them again.
   * @throws the Redis error when the queue cannot be reached (the sweeper queues a delivery
   *   without a job once it is overdue).
   */
  async wake(deliveries: QueuedDelivery[]): Promise<QueuedDelivery[]> {
    const states = await Promise.all(
      deliveries.map(async (delivery) => {
        const job = await this.queue.getJob(deliveryJobId(delivery.id));
        return { delivery, job, state: job ? await job.getState() : 'unknown' };
      }),
    );
    const busy: QueuedDelivery[] = [];
    const missing: QueuedDelivery[] = [];
    for (const { delivery, job, state } of states) {
      if (state === 'delayed') {
        // Refused when it left `delayed` meanwhile: its delay ran out, and it runs now anyway.
        await job!.promote().catch(() => undefined);
      } else if (state === 'unknown') {
        missing.push(delivery);
      } else if (state !== 'waiting' && state !== 'prioritized') {
        busy.push(delivery);
      }
    }
    await this.requeue(missing);
    return busy;
  }

  /**
   * Wakes the jobs endpoint `endpointId`'s throttle put back (docs/webhooks.md#throttling),
   * after its limits were changed: each still delayed is promoted, to ask the throttle again
   * now, under the new limits (the throttle forgets the turns given out under the old ones).
   * The throttle notes each job it puts back in the endpoint's `held` set; a job that left
   * `delayed` meanwhile is left alone.
   * @returns how many jobs were woken.
   * @throws the Redis error when the queue cannot be reached (the jobs come back by themselves
   *   within a minute, the throttle's longest wait).
   */
  async wakeThrottled(endpointId: number): Promise<number> {
    const client = (await this.queue.getBackend().client) as unknown as {
      zrange(key: string, start: number, stop: number): Promise<string[]>;
    };
    const jobIds = await client.zrange(
      throttleKeys(this.deployment.queuePrefix, endpointId).held,
      0,
      -1,
    );
    let woken = 0;
    for (const jobId of jobIds) {
      const job = await this.queue.getJob(jobId);
      if (!job || (await job.getState()) !== 'delayed') continue;
      // Refused when it left `delayed` meanwhile: it runs now anyway.
      if (
        await job.promote().then(
          () => true,
          () => false,
        )
      )
        woken += 1;
    }
    return woken;
  }

  /**
   * When the job next in line to be taken was queued (its BullMQ timestamp, ms since the
   * epoch), or null when no job waits. Every job still waiting was queued no earlier.
   * @throws the Redis error when the queue cannot be reached.
   */
  async nextInLineQueuedAt(): Promise<number | null> {
    const [next] = await this.queue.getJobs(['wait'], 0, 0, true);
    return next?.timestamp ?? null;
  }

  private deliveryJob({ id, endpointId }: QueuedDelivery) {
    return {
      name: DELIVER_JOB,
      data: { deliveryId: id, endpointId, deployment: this.deployment.id },
      opts: { ...this.jobOptions(), jobId: deliveryJobId(id) },
    };
  }

  private jobOptions() {
    return {
      attempts: this.config.webhookRetryScheduleMs.length + 1,
      backoff: { type: 'custom' },
      removeOnComplete: true,
      removeOnFail: true,
    };
  }

  private async addAll(
    jobs: Array<{
      name: string;
      data: DeliveryJobData | DeliveryBatchJobData;
      opts: ReturnType<DeliveryDispatcher['jobOptions']> & { jobId: string };
    }>,
  ): Promise<void> {
    for (let i = 0; i < jobs.length; i += BULK_CHUNK) {
      await this.queue.addBulk(jobs.slice(i, i + BULK_CHUNK));
    }
  }

  /**
   * {@link enqueue}, logging instead of throwing: used right after a commit, where the sweeper
   * is the fallback. Tracked until settled, so shutdown can wait for it ({@link drain}).
   */
  enqueueAfterCommit(deliveries: QueuedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return Promise.resolve();
    const done = this.enqueue(deliveries)
      .catch((error: unknown) => {
        this.logger.warn(
          `Could not queue ${deliveries.length} committed deliveries (${(error as Error).message}); the sweeper will queue them`,
        );
      })
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
    return done;
  }

  /**
   * Waits until every enqueue started after a commit has settled, for at most `timeoutMs`
   * (shutdown calls this before the queue's connection closes, so committed deliveries are
   * queued, not left to the sweeper; with Redis down they are left to it).
   */
  async drain(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
      ]);
      clearTimeout(timer);
    }
    if (this.inFlight.size > 0) {
      this.logger.warn(
        `${this.inFlight.size} enqueue(s) of committed deliveries still waiting for Redis; the sweeper will queue them`,
      );
    }
  }
}
