import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RetentionParticipant, type RetentionStep } from '../../common/retention-participant';
import { WebhookEventsRepository } from './webhook-events.repository';

/**
 * The outbox's side of retention (docs/operations.md#retention): events recorded before the
 * cutoff go, each with its deliveries. Their attempts were in the partitions the pass dropped
 * first (attempts have no foreign key to deliveries, docs/decisions.md#retention). Found by the
 * pass among the process's providers; runs first.
 */
@RetentionParticipant({ order: 10 })
@Injectable()
export class EventRetention implements RetentionStep {
  readonly retentionName = 'events';

  constructor(private readonly repository: WebhookEventsRepository) {}

  /** Deletes at most `limit` events recorded before `cutoff`, oldest first. */
  deleteExpiredBatch(
    session: EntityManager,
    cutoff: Date,
    _now: number,
    limit: number,
  ): Promise<number> {
    return this.repository.deleteCreatedBefore(session, cutoff, limit);
  }
}
