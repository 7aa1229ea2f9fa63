import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { PeriodicJob } from '../../common/periodic-job';
import { AppConfig } from '../../config/app-config';
import { DeliveryService } from '../attempts';
import { Deliveries, type OverdueDelivery } from '../deliveries';
import { WebhookEventPublisher } from '../outbox';

const SWEEP_BATCH = 1000;
/** Most deliveries one pass re-queues (then the next pass goes on). */
const SWEEP_PASS_LIMIT = 100_000;

/**
 * Re-queues pending deliveries whose attempt is overdue (docs/webhooks.md, at least once): those
 * committed but never queued (a crash after commit, Redis briefly down) and those whose job
 * Redis lost; and closes attempts that a dead process left unfinished. Job ids make re-queuing
 * an already queued delivery job a no-op, so any number of workers may sweep at once. A
 * delivery due within `WEBHOOK_SWEEP_INTERVAL_MS` of when the job next in line was queued, or
 * later, may still wait in a queued batch behind a backlog and is left alone until the queue
 * has moved past it (docs/reliability.md "The sweeper"). Runs at start and every
 * `WEBHOOK_SWEEP_INTERVAL_MS` in each worker process; one pass re-queues everything overdue,
 * batch after batch, not one batch per interval.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliverySweeper.name);
  private readonly job: PeriodicJob<number>;

  constructor(
    private readonly repository: Deliveries,
    private readonly dispatcher: WebhookEventPublisher,
    private readonly attempts: DeliveryService,
    private readonly config: AppConfig,
  ) {
    this.job = new PeriodicJob({
      name: 'Delivery sweep',
      intervalMs: config.webhookSweepIntervalMs,
      runAtStart: true,
      logger: this.logger,
      tick: () => this.sweep(),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  /** Stops sweeping (shutdown); a pass under way ends after its current batch. */
  stop(): void {
    void this.job.stop();
  }

  /**
   * One pass, unless one is under way (then 0). Never throws: a failure is logged.
   * @returns how many deliveries it re-queued (before the failure, for one that failed).
   */
  sweep(): Promise<number> {
    const pass = { queued: 0 };
    return this.job.run(
      () => this.pass(pass),
      () => pass.queued,
      () => 0,
    );
  }

  private async pass(pass: { queued: number }): Promise<number> {
    let after: OverdueDelivery | undefined;
    await this.attempts.closeAbandoned();
    // A delivery still waiting in a queued job (a batch behind a backlog) was due no later
    // than about when the job next in line was queued: leave those to their jobs.
    const queuedBefore = await this.dispatcher.nextInLineQueuedAt();
    for (;;) {
      const overdue = await this.repository.findOverdue(
        this.config.webhookSweepIntervalMs,
        SWEEP_BATCH,
        after,
        queuedBefore,
      );
      if (overdue.length === 0) break;
      await this.dispatcher.requeue(overdue);
      pass.queued += overdue.length;
      after = overdue[overdue.length - 1];
      if (overdue.length < SWEEP_BATCH || pass.queued >= SWEEP_PASS_LIMIT || !this.job.started) {
        break;
      }
    }
    if (pass.queued > 0) this.logger.log(`Re-queued ${pass.queued} overdue deliveries`);
    return pass.queued;
  }
}
