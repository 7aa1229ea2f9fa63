import { DiscoveryService } from '@nestjs/core';
import type { EntityManager } from 'typeorm';

/**
 * One kind of expired rows a feature removes during the retention pass
 * (docs/operations.md#retention). The pass (the delivery worker's `DeliveryRetention`) does not
 * import the features whose tables it keeps bounded: each feature registers a provider marked
 * `@RetentionParticipant()` in its own module, and the pass finds them with Nest's
 * `DiscoveryService` among the providers of the process, and calls each, batch by batch, on the
 * pass's own locked session.
 */
export interface RetentionStep {
  /** Short name for logs and the pass's report, e.g. `events`, `rejections`, `rollups`. */
  readonly retentionName: string;
  /**
   * Deletes one batch of expired rows.
   * @param session the retention pass's session: the statement runs there, outside any
   *   transaction.
   * @param cutoff everything recorded before this time (a UTC midnight,
   *   `DELIVERY_RETENTION_DAYS` days before today) has expired, unless the feature keeps its
   *   rows by a window of its own measured back from `now`.
   * @param now the pass's start, in ms since the epoch.
   * @param limit the most rows one statement may delete.
   * @returns how many rows it deleted: fewer than `limit` when none are left.
   */
  deleteExpiredBatch(
    session: EntityManager,
    cutoff: Date,
    now: number,
    limit: number,
  ): Promise<number>;
}

/**
 * Marks a provider as a {@link RetentionStep}. The option is the order in which the pass runs
 * the steps (lower first; events before rejections before rollups today).
 */
export const RetentionParticipant = DiscoveryService.createDecorator<{ order: number }>();
