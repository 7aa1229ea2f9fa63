import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * Retention's statement on `lead_import_rejection` (docs/operations.md#retention). The rows are
 * written by `LeadsRepository` in the import's transaction and read by the import reads.
 */
@Injectable()
export class ImportRejectionsRepository {
  /**
   * Deletes at most `limit` rejected rows recorded before `cutoff`, in no particular order.
   * @param session the caller's session or transaction: the statement runs there.
   * @returns how many rows it deleted.
   */
  async deleteCreatedBefore(session: EntityManager, cutoff: Date, limit: number): Promise<number> {
    const [, count]: [unknown, number] = await session.query(
      `DELETE FROM lead_import_rejection WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM lead_import_rejection WHERE created_at < $1 LIMIT $2))`,
      [cutoff, limit],
    );
    return count;
  }
}
