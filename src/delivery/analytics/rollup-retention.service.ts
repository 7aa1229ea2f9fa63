import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RetentionParticipant, type RetentionStep } from '../../common/retention-participant';
import { DeliveryRollupRepository } from './delivery-rollup.repository';

/** How long minute rollups are kept: they feed the 1-hour window and the last-hour rule only. */
export const MINUTE_ROLLUP_RETENTION = '7 days';
/** How long hour and day rollups are kept. */
export const ROLLUP_RETENTION = '13 months';

/** The windows, in the order they are pruned: minute rows first, then hour and day rows. */
const WINDOWS = [
  [['minute'], MINUTE_ROLLUP_RETENTION],
  [['hour', 'day'], ROLLUP_RETENTION],
] as const;

/**
 * The analytics' side of retention (docs/operations.md#retention): rollup rows are kept by
 * windows of their own measured back from the pass's start, minute rows for
 * {@link MINUTE_ROLLUP_RETENTION}, hour and day rows for {@link ROLLUP_RETENTION}. Found by the
 * pass among the process's providers; runs last.
 */
@RetentionParticipant({ order: 30 })
@Injectable()
export class RollupRetention implements RetentionStep {
  readonly retentionName = 'rollups';

  constructor(private readonly repository: DeliveryRollupRepository) {}

  /**
   * Deletes at most `limit` expired rollup rows: minute rows first, then, when fewer than
   * `limit` were left of those, hour and day rows.
   */
  async deleteExpiredBatch(
    session: EntityManager,
    _cutoff: Date,
    now: number,
    limit: number,
  ): Promise<number> {
    let deleted = 0;
    for (const [periods, keep] of WINDOWS) {
      deleted += await this.repository.deleteOlderThan(
        session,
        new Date(now),
        periods,
        keep,
        limit - deleted,
      );
      if (deleted >= limit) break;
    }
    return deleted;
  }
}
