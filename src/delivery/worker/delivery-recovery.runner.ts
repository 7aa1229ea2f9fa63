import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  Optional,
} from '@nestjs/common';
import { PeriodicJob } from '../../common/periodic-job';
import { Metrics } from '../../metrics';
import { WebhookEventPublisher, type QueuedDelivery } from '../outbox';
import { DeliveryRecoveries, type MovedDelivery } from '../recovery';

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
 * How long after waking them the deliveries whose job was busy (or that had an attempt under
 * way) are looked at once more, in ms.
 */
export const RECOVERY_RECHECK_MS = 1_000;

/**
 * The delivery worker's side of bulk recovery (docs/webhooks.md#bulk-recovery) and of the
 * replay of missed deliveries, the same recovery with the scope `missed`
 * (docs/webhooks.md#replaying-missed-deliveries). Every
 * `RECOVERY_POLL_MS` each worker process takes the first running recovery whose last batch has
 * been sent (no longer `pending`), locking its row (`FOR UPDATE SKIP LOCKED`, so two workers
 * never take the same batch), and in that transaction moves its next
 * {@link RECOVERY_BATCH_SIZE} deliveries of its scope to `pending` (due now) and advances its
 * cursor and `processed`; after the commit it queues them through `DeliveryDispatcher`, so the
 * normal pipeline sends them with their webhook-id. Deliveries that were pending, waiting on a
 * retry, are not queued again: their own job is woken ({@link DeliveryDispatcher.wake}), so
 * they are never attempted twice at once; those whose job was busy, or that had an attempt
 * under way, are looked at again {@link RECOVERY_RECHECK_MS} later and woken if still due.
 * When none is left the recovery is `done`.
 * Everything lives in PostgreSQL: a recovery left running by a worker that died is taken by
 * the next poll of any worker, and deliveries committed but not queued are the sweeper's.
 */
@Injectable()
export class DeliveryRecoveryRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryRecoveryRunner.name);
  private readonly job: PeriodicJob<number>;

  constructor(
    private readonly recoveries: DeliveryRecoveries,
    private readonly dispatcher: WebhookEventPublisher,
    @Optional() private readonly metrics?: Metrics,
  ) {
    this.job = new PeriodicJob({
      name: 'Delivery recovery',
      intervalMs: RECOVERY_POLL_MS,
      runAtStart: true,
      logger: this.logger,
      tick: () => this.poll(),
    });
  }

  /** Starts polling (a no-op while it polls already). */
  onApplicationBootstrap(): void {
    this.job.start();
  }

  /** Stops polling and waits for a poll under way (its batch is committed and queued). */
  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /**
   * Takes batches of running recoveries until none is ready (at most {@link BATCHES_PER_POLL}).
   * Never throws; a poll already under way in this process makes this one a no-op.
   * @returns how many deliveries it moved back to `pending`.
   */
  poll(): Promise<number> {
    const progress = { moved: 0 };
    return this.job.run(
      () => this.pollNow(progress),
      () => progress.moved,
      () => 0,
    );
  }

  private async pollNow(progress: { moved: number }): Promise<number> {
    for (let i = 0; i < BATCHES_PER_POLL; i += 1) {
      const batch = await this.nextBatch();
      if (batch === null) break;
      progress.moved += batch.length;
      this.metrics?.recordRecoveredDeliveries(batch.length);
      if (batch.length > 0) await this.queue(batch);
    }
    return progress.moved;
  }

  /**
   * Queues a committed batch: the deliveries that were not pending like new ones, and the jobs
   * of those waiting on a retry woken; any that could not be woken at once (their job busy, or
   * an attempt under way) are looked at again after {@link RECOVERY_RECHECK_MS}. Never throws:
   * what Redis did not take is the sweeper's.
   */
  private async queue(batch: MovedDelivery[]): Promise<void> {
    const plain = (d: MovedDelivery): QueuedDelivery => ({ id: d.id, endpointId: d.endpointId });
    const warn = (what: string) => (error: unknown) => {
      this.logger.warn(
        `Could not queue ${what} (${(error as Error).message}); the sweeper will queue them`,
      );
      return [] as QueuedDelivery[];
    };
    const fresh = batch.filter((d) => !d.retrying).map(plain);
    if (fresh.length > 0) {
      await this.dispatcher.enqueue(fresh).catch(warn(`${fresh.length} recovered deliveries`));
    }
    const retrying = batch.filter((d) => d.retrying);
    if (retrying.length === 0) return;
    const busy = await this.dispatcher
      .wake(retrying.filter((d) => !d.inFlight).map(plain))
      .catch(warn(`the retries of ${retrying.length} recovered deliveries`));
    const again = [...busy, ...retrying.filter((d) => d.inFlight).map(plain)];
    if (again.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, RECOVERY_RECHECK_MS));
    const due = await this.recoveries.dueWithoutAttempt(again);
    if (due.length > 0) {
      await this.dispatcher
        .wake(due)
        .catch(warn(`the retries of ${due.length} recovered deliveries`));
    }
  }

  /** One batch of the first ready recovery ({@link DeliveryRecoveries.takeBatch}). */
  private nextBatch(): Promise<MovedDelivery[] | null> {
    return this.recoveries.takeBatch(RECOVERY_BATCH_SIZE, RECOVERY_BATCH_STALE_MS);
  }
}
