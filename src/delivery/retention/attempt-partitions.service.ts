import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
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
}
