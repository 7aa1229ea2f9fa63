import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { PeriodicJob } from '../../common/periodic-job';
import { RetentionParticipant, type RetentionStep } from '../../common/retention-participant';
import { AppConfig } from '../../config/app-config';
import { DAY_MS, DeliveryService, utcDay } from '../attempts';
import { DeliveryRetentionRepository } from './delivery-retention.repository';

/** Rows one retention statement deletes at most, so no statement holds locks for long. */
export const RETENTION_BATCH = 1_000;

/** What one retention pass removed and made. */
export interface RetentionReport {
  /** Everything recorded before this time is gone (a UTC midnight). */
  cutoff: Date;
  droppedPartitions: string[];
  deletedEvents: number;
  /** Rejected rows of imports (docs/dashboard.md#imports). */
  deletedRejections: number;
  deletedRollups: number;
  madePartitions: string[];
  /**
   * How long each step took, in ms, in the order they ran: `partitions`, then each
   * participant's by its `retentionName` (`events`, `rejections`, `rollups` in the processes
   * that load them all).
   */
  stepsMs: { partitions: number } & Record<string, number>;
}

/** A participant found among the process's providers, with its place in the pass. */
interface FoundStep {
  step: RetentionStep;
  order: number;
}

/**
 * Keeps the database bounded (docs/operations.md#retention). Each pass, in one worker at a
 * time:
 * 1. drops the attempts' daily partitions that end on or before the cutoff (midnight UTC,
 *    `DELIVERY_RETENTION_DAYS` days before today), detaching each `CONCURRENTLY` first, so
 *    attempts are written and read on while a partition of any size goes;
 * 2. runs each participant (a `@RetentionParticipant` {@link RetentionStep}, found with Nest's
 *    `DiscoveryService` among the process's providers, in their `order`) in batches of
 *    {@link RETENTION_BATCH} on the pass's session: the events recorded before the cutoff with
 *    their deliveries (`EventRetention`), the rejected rows of imports made before it (the
 *    leads' `ImportRejectionRetention`), the expired rollups (`RollupRetention`);
 * 3. makes the attempts' partitions ahead (`AttemptPartitions`, through the attempts' `DeliveryService`).
 *
 * The endpoints' health counters are never touched: they stay all-time and exact. The pass
 * imports none of the participants' modules: each registers its step in its own module.
 */
@Injectable()
export class DeliveryRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryRetention.name);
  private readonly job: PeriodicJob<RetentionReport | null>;
  private found?: FoundStep[];

  constructor(
    private readonly repository: DeliveryRetentionRepository,
    private readonly attempts: DeliveryService,
    private readonly discovery: DiscoveryService,
    private readonly config: AppConfig,
  ) {
    this.job = new PeriodicJob({
      name: 'Retention pass',
      intervalMs: config.deliveryRetentionIntervalMs,
      logger: this.logger,
      failureLevel: 'error',
      tick: () => this.run(),
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.job.stop();
  }

  /**
   * One pass, or the one under way in this process. Never throws: a failure is logged and the
   * next pass goes on from there.
   * @returns what it did, or null when another worker's pass is running (or this one failed).
   */
  run(now = Date.now()): Promise<RetentionReport | null> {
    return this.job.run(
      () => this.pass(now),
      () => null,
    );
  }

  private async pass(now: number): Promise<RetentionReport | null> {
    const cutoff = new Date(utcDay(now).getTime() - this.config.deliveryRetentionDays * DAY_MS);
    // A session of its own: the advisory lock, and DETACH … CONCURRENTLY, need one connection
    // outside any transaction.
    try {
      return await this.repository.whileLocked(async (session) => {
        const stepsMs: RetentionReport['stepsMs'] = { partitions: 0 };
        const timed = async <T>(step: string, work: () => Promise<T>) => {
          const started = performance.now();
          try {
            return await work();
          } finally {
            stepsMs[step] = Math.round(performance.now() - started);
          }
        };
        const droppedPartitions = await timed('partitions', () =>
          this.attempts.dropPartitionsBefore(session, cutoff),
        );
        const deleted: Record<string, number> = {};
        for (const step of this.steps()) {
          const name = step.retentionName;
          deleted[name] = await timed(name, () =>
            this.deleteInBatches((limit) => step.deleteExpiredBatch(session, cutoff, now, limit)),
          );
        }
        const report: RetentionReport = {
          cutoff,
          droppedPartitions,
          deletedEvents: deleted.events ?? 0,
          deletedRejections: deleted.rejections ?? 0,
          deletedRollups: deleted.rollups ?? 0,
          madePartitions: await this.attempts.ensurePartitionsAhead(now),
          stepsMs,
        };
        const { deletedEvents, deletedRejections, deletedRollups } = report;
        if (droppedPartitions.length + deletedEvents + deletedRejections + deletedRollups > 0) {
          this.logger.log(
            `Retention before ${cutoff.toISOString()}: dropped ${droppedPartitions.length} attempt partition(s)` +
              `${droppedPartitions.length ? ` (${droppedPartitions.join(', ')})` : ''}, deleted ${deletedEvents} event(s), ${deletedRejections} rejected import row(s) and ${deletedRollups} rollup row(s)`,
          );
        }
        return report;
      });
    } catch (error) {
      this.logger.error(`Retention pass failed: ${(error as Error).message}`);
      return null;
    }
  }

  /**
   * The participants, in their `order` (found once: the providers of a process do not change).
   */
  private steps(): RetentionStep[] {
    this.found ??= this.discovery
      .getProviders({ metadataKey: RetentionParticipant.KEY })
      .filter((wrapper) => wrapper.instance)
      .map((wrapper): FoundStep => ({
        step: wrapper.instance as RetentionStep,
        order: this.discovery.getMetadataByDecorator(RetentionParticipant, wrapper)?.order ?? 0,
      }))
      .sort((a, b) => a.order - b.order);
    return this.found.map(({ step }) => step);
  }

  /**
   * Runs `deleteBatch` (a DELETE of at most `limit` rows, returning how many it deleted) until
   * it deletes fewer than {@link RETENTION_BATCH} rows. After each full batch it pauses as long
   * as the batch took, so that retention takes at most half of a core from the traffic beside
   * it (docs/operations.md#retention).
   * @returns how many rows it deleted in all.
   */
  private async deleteInBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
    let deleted = 0;
    for (;;) {
      const started = performance.now();
      const count = await deleteBatch(RETENTION_BATCH);
      deleted += count;
      if (count < RETENTION_BATCH) return deleted;
      await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    }
  }
}
