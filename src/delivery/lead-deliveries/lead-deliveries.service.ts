import { Injectable } from '@nestjs/common';
import { parsePageLimit } from '../../common/page-limit';
import { decodeLogCursor, encodeLogCursor } from '../attempts';
import { LeadDeliveriesRepository, type LeadDeliveryRow } from './lead-deliveries.repository';

/** Deliveries per timeline page when the caller names no `limit`. */
export const DEFAULT_TIMELINE_LIMIT = 20;
/** The largest `limit` of a timeline page. */
export const MAX_TIMELINE_LIMIT = 100;

/** How an attempt ended: a `2xx` in time, anything else, or not yet (in flight). */
export type AttemptOutcome = 'succeeded' | 'failed' | 'in_flight';

/** One attempt of a delivery in a lead's timeline. */
export interface LeadDeliveryAttempt {
  id: number;
  attempted_at: Date;
  outcome: AttemptOutcome;
  /** null when no response came (or none yet). */
  status_code: number | null;
  /** To the response status or the failure, in ms; null while in flight. */
  duration_ms: number | null;
  error: string | null;
}

/** One delivery of an event about the lead, with its attempts, newest first. */
export interface LeadDelivery extends Omit<LeadDeliveryRow, 'partitionKey' | 'position'> {
  attempts: LeadDeliveryAttempt[];
}

/** A page of a lead's timeline: `next_cursor` is null on the last page. */
export interface LeadDeliveryPage {
  items: LeadDelivery[];
  next_cursor: string | null;
}

/**
 * A lead's webhook deliveries (docs/dashboard.md#a-leads-page): every delivery of every event
 * recorded about the lead (`lead.created`, and the later events whose data names it by
 * `lead_id`), newest first, each with its attempts and their outcome. Only what retention kept
 * (docs/operations.md#retention): older events, deliveries and attempts are gone.
 */
@Injectable()
export class LeadDeliveries {
  constructor(private readonly repository: LeadDeliveriesRepository) {}

  /**
   * One page of the timeline of lead `leadId` of campaign `campaignId` (the caller has checked
   * that the lead is the campaign's and the campaign the account's).
   * @param query `limit` (1 to {@link MAX_TIMELINE_LIMIT}, default
   *   {@link DEFAULT_TIMELINE_LIMIT}, decimal digits) and `cursor` (a `next_cursor`).
   * @throws InvalidInputError (field `limit` or `cursor`).
   */
  async page(
    campaignId: number,
    leadId: number,
    query: { limit?: string; cursor?: string },
  ): Promise<LeadDeliveryPage> {
    const limit = parsePageLimit(query.limit, {
      fallback: DEFAULT_TIMELINE_LIMIT,
      max: MAX_TIMELINE_LIMIT,
    });
    const after = query.cursor === undefined ? null : decodeLogCursor(query.cursor);
    const rows = await this.repository.deliveries(campaignId, leadId, limit + 1, after);
    const page = rows.slice(0, limit);
    const attempts = await this.repository.attempts(page);
    const byDelivery = new Map<number, LeadDeliveryAttempt[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.delivery_id) ?? [];
      const finished = a.finished_at !== null;
      list.push({
        id: a.id,
        attempted_at: a.attempted_at,
        outcome: !finished ? 'in_flight' : a.success ? 'succeeded' : 'failed',
        status_code: a.status_code,
        duration_ms: finished ? a.duration_ms : null,
        error: a.error,
      });
      byDelivery.set(a.delivery_id, list);
    }
    const last = page.at(-1);
    return {
      items: page.map(({ partitionKey: _key, position: _position, ...delivery }) => ({
        ...delivery,
        attempts: byDelivery.get(delivery.id) ?? [],
      })),
      next_cursor: rows.length > limit && last ? encodeLogCursor(last.position) : null,
    };
  }
}
