import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RetentionParticipant, type RetentionStep } from '../../common/retention-participant';
import { FilteredEventsRepository } from './filtered-events.repository';
import { WebhookEventsRepository } from './webhook-events.repository';

/**
 * The outbox's side of retention (docs/operations.md#retention): events recorded before the
 * cutoff go, each with its deliveries. Their attempts were in the partitions the pass dropped
 * first (attempts have no foreign key to deliveries, docs/decisions.md#retention); the last
 * batch also deletes the endpoints' filtered-out counts of the days before the cutoff's
 * (docs/webhooks.md#payload-filters). Found by the
 * pass among the process's providers; runs first.
 */
@RetentionParticipant({ order: 10 })
@Injectable()
export class EventRetention implements RetentionStep {
  readonly retentionName = 'events';

  constructor(
    private readonly repository: WebhookEventsRepository,
    private readonly filtered: FilteredEventsRepository,
  ) {}

  /**
   * Deletes at most `limit` events recorded before `cutoff`, oldest first; when fewer remained
   * (the pass's last batch), also the filtered-out counts of the days before `cutoff`'s.
   */
  async deleteExpiredBatch(
    session: EntityManager,
    cutoff: Date,
    _now: number,
    limit: number,
  ): Promise<number> {
    const deleted = await this.repository.deleteCreatedBefore(session, cutoff, limit);
    if (deleted < limit) await this.filtered.deleteBefore(session, cutoff);
    return deleted;
  }
}
