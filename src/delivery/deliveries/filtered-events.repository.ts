import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Events one endpoint's filter left out in one batch (docs/webhooks.md#payload-filters). */
export interface FilteredCount {
  endpointId: number;
  /** Events the filter left out: no match, or an evaluation error. */
  filtered: number;
  /** Of those, the evaluation errors. */
  errors: number;
}

/**
 * The writes of `endpoint_filtered_day`: each endpoint's filtered-out events per UTC day, added
 * in the transaction that records the events, and retention's deletes.
 */
@Injectable()
export class FilteredEventsRepository {
  /**
   * Adds the counts to the day `at` falls on (UTC) in the caller's transaction: one upsert,
   * rows in endpoint order (one lock order for concurrent batches).
   */
  async add(manager: EntityManager, at: Date, counts: FilteredCount[]): Promise<void> {
    if (counts.length === 0) return;
    const rows = [...counts].sort((a, b) => a.endpointId - b.endpointId);
    await manager.query(
      `INSERT INTO endpoint_filtered_day AS f (endpoint_id, day, filtered, errors)
       SELECT c.endpoint_id, ($1::timestamptz AT TIME ZONE 'UTC')::date, c.filtered, c.errors
         FROM unnest($2::int[], $3::int[], $4::int[]) AS c(endpoint_id, filtered, errors)
       ON CONFLICT (endpoint_id, day) DO UPDATE
          SET filtered = f.filtered + EXCLUDED.filtered, errors = f.errors + EXCLUDED.errors`,
      [at, rows.map((c) => c.endpointId), rows.map((c) => c.filtered), rows.map((c) => c.errors)],
    );
  }

  /**
   * Deletes the days that ended before `cutoff` (UTC), with the events of those days.
   * @param session the caller's session: the statement runs there.
   * @returns how many rows it deleted.
   */
  async deleteBefore(session: EntityManager, cutoff: Date): Promise<number> {
    const [, count]: [unknown, number] = await session.query(
      `DELETE FROM endpoint_filtered_day WHERE day < ($1::timestamptz AT TIME ZONE 'UTC')::date`,
      [cutoff],
    );
    return count;
  }
}
