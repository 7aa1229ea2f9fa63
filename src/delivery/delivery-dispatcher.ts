import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { DeploymentIdentity } from '../database/deployment-identity';
import {
  DELIVERY_QUEUE,
  deliveryJobId,
  type DeliveryJobData,
  type QueuedDelivery,
} from './delivery-queue';

const BULK_CHUNK = 1000;

/**
 * Puts committed deliveries on the BullMQ queue. Job ids are derived from delivery ids, so
 * queuing a delivery again (the sweeper, a retry of this call) never doubles it. Completed
 * and failed jobs are removed: PostgreSQL keeps the history.
 */
@Injectable()
export class DeliveryDispatcher implements OnModuleInit {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  private lastConnectionWarning = 0;
  /** Enqueues started after a commit and not yet settled; {@link drain} waits for them. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue<DeliveryJobData>,
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

  /** @throws the Redis error when the queue cannot be reached (the sweeper will re-queue). */
  async enqueue(deliveries: QueuedDelivery[]): Promise<void> {
    for (let i = 0; i < deliveries.length; i += BULK_CHUNK) {
      await this.queue.addBulk(
        deliveries.slice(i, i + BULK_CHUNK).map(({ id, endpointId }) => ({
          name: 'deliver',
          data: { deliveryId: id, endpointId, deployment: this.deployment.id },
          opts: {
            jobId: deliveryJobId(id),
            attempts: this.config.webhookRetryScheduleMs.length + 1,
            backoff: { type: 'custom' },
            removeOnComplete: true,
            removeOnFail: true,
          },
        })),
      );
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
