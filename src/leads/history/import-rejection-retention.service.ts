import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RetentionParticipant, type RetentionStep } from '../../common/retention-participant';
import { ImportRejectionsRepository } from './import-rejections.repository';

/**
 * The leads' side of retention (docs/operations.md#retention): rejected rows of imports
 * (docs/dashboard.md#imports) go with the delivery attempts of the same days. A
 * `@RetentionParticipant`: the delivery worker's pass finds it among the process's providers
 * (`LeadImportsModule`, loaded wherever leads are imported, provides it) and calls it, batch by batch, on its own session;
 * `lead_import_rejection` stays the leads' table, and delivery imports nothing of leads.
 */
@RetentionParticipant({ order: 20 })
@Injectable()
export class ImportRejectionRetention implements RetentionStep {
  readonly retentionName = 'rejections';

  constructor(private readonly repository: ImportRejectionsRepository) {}

  /**
   * Deletes one batch: at most `limit` rejected rows recorded before `cutoff`.
   * @param session the retention pass's session; the statement runs there.
   * @returns how many rows it deleted (fewer than `limit` when none are left).
   */
  deleteExpiredBatch(
    session: EntityManager,
    cutoff: Date,
    _now: number,
    limit: number,
  ): Promise<number> {
    return this.repository.deleteCreatedBefore(session, cutoff, limit);
  }
}
