import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DAY_MS, PARTITION_DAYS_AHEAD, utcDay } from './attempt-partitions';
import { AttemptPartitionsRepository } from './attempt-partitions.repository';

/**
 * Keeps the attempts' partitions ready when any process starts, API or worker: today and the
 * {@link PARTITION_DAYS_AHEAD} days after it (docs/operations.md#retention). The worker's
 * retention pass keeps them ahead afterwards. Never throws: a failure is logged, and an
 * attempt finds its partition as long as one of the last two weeks' passes succeeded.
 */
@Injectable()
export class AttemptPartitions implements OnApplicationBootstrap {
  private readonly logger = new Logger(AttemptPartitions.name);

  constructor(private readonly repository: AttemptPartitionsRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureAhead();
  }

  /**
   * Makes the missing partitions from today to {@link PARTITION_DAYS_AHEAD} days ahead.
   * @param now the current time, ms since the epoch.
   * @returns the names of the partitions made (none when the call failed).
   */
  async ensureAhead(now = Date.now()): Promise<string[]> {
    const today = utcDay(now);
    try {
      const made = await this.repository.ensure(
        today,
        new Date(today.getTime() + PARTITION_DAYS_AHEAD * DAY_MS),
      );
      if (made.length > 0) this.logger.log(`Made attempt partitions ${made.join(', ')}`);
      return made;
    } catch (error) {
      this.logger.error(`Could not make attempt partitions: ${(error as Error).message}`);
      return [];
    }
  }

  /**
   * Drops each partition whose range ends on or before `cutoff`, on the retention pass's
   * `session` (outside any transaction). A detach left half-done by a process that stopped is
   * finished first; `CONCURRENTLY` waits for queries already using the partition instead of
   * blocking new ones.
   * @returns the names of the partitions dropped.
   */
  async dropBefore(session: EntityManager, cutoff: Date): Promise<string[]> {
    const dropped: string[] = [];
    for (const partition of await this.repository.list(session)) {
      if (partition.to.getTime() > cutoff.getTime()) continue;
      await this.repository.detachAndDrop(session, partition);
      dropped.push(partition.name);
    }
    return dropped;
  }
}
