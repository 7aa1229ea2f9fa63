import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PeriodicJob } from '../../common/periodic-job';
import { AppConfig } from '../../config/app-config';
import { ImportRejectionRetention } from '../../leads/history/import-rejection-retention.service';
import { DAY_MS, utcDay } from './attempt-partitions';
import { AttemptPartitionsRepository } from './attempt-partitions.repository';
import { AttemptPartitions } from './attempt-partitions.service';
import { DeliveryRetentionRepository } from './delivery-retention.repository';

/** Rows one retention statement deletes at most, so no statement holds locks for long. */
export const RETENTION_BATCH = 1_000;
/** How long minute rollups are kept: they feed the 1-hour window and the last-hour rule only. */
export const MINUTE_ROLLUP_RETENTION = '7 days';
/** How long hour and day rollups are kept. */
export const ROLLUP_RETENTION = '13 months';

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
  /** How long each step took, in ms, in the order they ran. */
  stepsMs: { partitions: number; events: number; rejections: number; rollups: number };
}

/**
 * Keeps the database bounded (docs/operations.md#retention). Each pass, in one worker at a
 * time:
 * 1. drops the attempts' daily partitions that end on or before the cutoff (midnight UTC,
 *    `DELIVERY_RETENTION_DAYS` days before today), detaching each `CONCURRENTLY` first, so
 *    attempts are written and read on while a partition of any size goes;
 * 2. deletes the events recorded before the cutoff, with their deliveries, and the rejected
 *    rows of imports made before it, in batches of {@link RETENTION_BATCH};
 * 3. prunes rollups: minute rows after {@link MINUTE_ROLLUP_RETENTION}, hour and day rows after
 *    {@link ROLLUP_RETENTION};
 * 4. makes the attempts' partitions ahead ({@link AttemptPartitions}).
 *
 * The endpoints' health counters are never touched: they stay all-time and exact. The
 * statements are {@link DeliveryRetentionRepository}'s and {@link AttemptPartitionsRepository}'s;
 * the rejected rows, a leads table, go through the leads' {@link ImportRejectionRetention}, on
 * the pass's session all the same.
 */
@Injectable()
export class DeliveryRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryRetention.name);
  private readonly job: PeriodicJob<RetentionReport | null>;

  constructor(
    private readonly repository: DeliveryRetentionRepository,
    private readonly partitionsRepository: AttemptPartitionsRepository,
    private readonly rejections: ImportRejectionRetention,
    private readonly partitions: AttemptPartitions,
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
        const stepsMs = { partitions: 0, events: 0, rejections: 0, rollups: 0 };
        const timed = async <T>(step: keyof typeof stepsMs, work: () => Promise<T>) => {
          const started = performance.now();
          try {
            return await work();
          } finally {
            stepsMs[step] = Math.round(performance.now() - started);
          }
        };
        const report: RetentionReport = {
          cutoff,
          droppedPartitions: await timed('partitions', () => this.dropPartitions(session, cutoff)),
          deletedEvents: await timed('events', () => this.deleteEvents(session, cutoff)),
          deletedRejections: await timed('rejections', () =>
            this.deleteInBatches((limit) => this.rejections.deleteBatch(session, cutoff, limit)),
          ),
          deletedRollups: await timed('rollups', () => this.pruneRollups(session, now)),
          madePartitions: await this.partitions.ensureAhead(now),
          stepsMs,
        };
        const { droppedPartitions, deletedEvents, deletedRejections, deletedRollups } = report;
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
   * Drops each partition whose range ends on or before `cutoff`. A detach left half-done by a
   * process that stopped is finished first; `CONCURRENTLY` waits for queries already using
   * the partition instead of blocking new ones.
   */
  private async dropPartitions(session: EntityManager, cutoff: Date): Promise<string[]> {
    const dropped: string[] = [];
    for (const partition of await this.partitionsRepository.list(session)) {
      if (partition.to.getTime() > cutoff.getTime()) continue;
      await this.partitionsRepository.detachAndDrop(session, partition);
      dropped.push(partition.name);
    }
    return dropped;
  }

  /**
   * Deletes the events recorded before `cutoff`, oldest first, {@link RETENTION_BATCH} per
   * statement; each takes its deliveries along. Their attempts were in the partitions just
   * dropped (attempts have no foreign key to deliveries, docs/decisions.md#retention).
   */
  private deleteEvents(session: EntityManager, cutoff: Date): Promise<number> {
    return this.deleteInBatches((limit) =>
      this.repository.deleteEventsBefore(session, cutoff, limit),
    );
  }

  /**
   * Deletes expired rollup rows, {@link RETENTION_BATCH} per statement: minute rows after
   * {@link MINUTE_ROLLUP_RETENTION}, hour and day rows after {@link ROLLUP_RETENTION}.
   */
  private async pruneRollups(session: EntityManager, now: number): Promise<number> {
    let deleted = 0;
    for (const [periods, keep] of [
      [['minute'], MINUTE_ROLLUP_RETENTION],
      [['hour', 'day'], ROLLUP_RETENTION],
    ] as const) {
      deleted += await this.deleteInBatches((limit) =>
        this.repository.deleteRollupsOlderThan(session, new Date(now), periods, keep, limit),
      );
    }
    return deleted;
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
