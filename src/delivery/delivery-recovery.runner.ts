import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryTargets } from '../webhooks/delivery-targets';
import { DeliveryDispatcher } from './delivery-dispatcher';
import type { QueuedDelivery } from './delivery-queue';
import { DeliveryRecoveryRepository } from './delivery-recovery.repository';

/** Deliveries a recovery moves back to `pending` per batch (one transaction). */
export const RECOVERY_BATCH_SIZE = 100;
/** How often each worker looks for a running recovery with a batch to take, in ms. */
export const RECOVERY_POLL_MS = 1_000;
/**
 * How long a batch may stay in `pending` before the next one is taken anyway, in ms: a batch
 * whose job Redis lost waits for the sweeper, and a recovery must not wait for ever.
 */
export const RECOVERY_BATCH_STALE_MS = 5 * 60_000;
/** Most batches one poll takes before it yields to the timer again. */
const BATCHES_PER_POLL = 20;

/**
 * The delivery worker's side of bulk recovery (docs/webhooks.md#bulk-recovery) and of the
 * replay of missed deliveries, the same recovery with the scope `missed`
 * (docs/webhooks.md#replaying-missed-deliveries). Every
 * `RECOVERY_POLL_MS` each worker process takes the first running recovery whose last batch has
 * been sent (no longer `pending`), locking its row (`FOR UPDATE SKIP LOCKED`, so two workers
 * never take the same batch), and in that transaction moves its next
 * {@link RECOVERY_BATCH_SIZE} deliveries of its scope to `pending` (due now) and advances its
 * cursor and `processed`; after the commit it queues them through `DeliveryDispatcher`, so the
 * normal pipeline sends them with their webhook-id. When none is left the recovery is `done`.
 * Everything lives in PostgreSQL: a recovery left running by a worker that died is taken by
 * the next poll of any worker, and deliveries committed but not queued are the sweeper's.
 */
@Injectable()
export class DeliveryRecoveryRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryRecoveryRunner.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: DeliveryRecoveryRepository,
    private readonly targets: DeliveryTargets,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  /** Starts polling (a no-op while it polls already). */
  onApplicationBootstrap(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), RECOVERY_POLL_MS);
    this.timer.unref();
    void this.poll();
  }

  /** Stops polling and waits for a poll under way (its batch is committed and queued). */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * Takes batches of running recoveries until none is ready (at most {@link BATCHES_PER_POLL}).
   * Never throws; a poll already under way in this process makes this one a no-op.
   * @returns how many deliveries it moved back to `pending`.
   */
  poll(): Promise<number> {
    if (this.running) return Promise.resolve(0);
    this.running = this.pollNow().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pollNow(): Promise<number> {
    let moved = 0;
    try {
      for (let i = 0; i < BATCHES_PER_POLL; i += 1) {
        const batch = await this.nextBatch();
        if (batch === null) break;
        moved += batch.length;
        if (batch.length > 0) {
          await this.dispatcher.enqueue(batch).catch((error: unknown) => {
            this.logger.warn(
              `Could not queue ${batch.length} recovered deliveries (${(error as Error).message}); the sweeper will queue them`,
            );
          });
        }
      }
    } catch (error) {
      this.logger.warn(`Delivery recovery failed: ${(error as Error).message}`);
    }
    return moved;
  }

  /**
   * One batch of the first ready recovery, in one transaction.
   * @returns the deliveries moved (empty when the recovery ended), or null when no recovery is
   *   ready.
   */
  private nextBatch(): Promise<QueuedDelivery[] | null> {
    return this.dataSource.transaction(async (manager) => {
      const recovery = await this.repository.claimNext(manager, RECOVERY_BATCH_STALE_MS);
      if (!recovery) return null;
      const target = await this.targets.find(recovery.endpointId);
      if (!target || !target.isEnabled) {
        // Sent now, they would be dropped: the recovery stops instead.
        await this.repository.finish(recovery.id, 'cancelled', manager);
        this.logger.log(`Recovery ${recovery.id} cancelled: its endpoint is disabled`);
        return [];
      }
      const moved = await this.repository.moveBatch(manager, recovery, RECOVERY_BATCH_SIZE);
      if (moved.length === 0 && !(await this.repository.anyLeft(manager, recovery))) {
        await this.repository.finish(recovery.id, 'done', manager);
      }
      return moved;
    });
  }
}
