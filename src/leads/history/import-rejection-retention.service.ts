import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ImportRejectionsRepository } from './import-rejections.repository';

/**
 * The leads' side of retention (docs/operations.md#retention): rejected rows of imports
 * (docs/dashboard.md#imports) go with the delivery attempts of the same days. The delivery
 * worker's pass calls it, batch by batch, on its own session; `lead_import_rejection` stays
 * the leads' table.
 */
@Injectable()
export class ImportRejectionRetention {
  constructor(private readonly repository: ImportRejectionsRepository) {}

  /**
   * Deletes one batch: at most `limit` rejected rows recorded before `cutoff`.
   * @param session the retention pass's session; the statement runs there.
   * @returns how many rows it deleted (fewer than `limit` when none are left).
   */
  deleteBatch(session: EntityManager, cutoff: Date, limit: number): Promise<number> {
    return this.repository.deleteCreatedBefore(session, cutoff, limit);
  }
}
