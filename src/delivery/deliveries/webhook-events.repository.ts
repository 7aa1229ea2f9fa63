import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { TraceCarrier } from '../../tracing/trace-hooks';

/** An event row about to be recorded. */
export interface NewEvent {
  id: string;
  type: string;
  body: string;
  /** The lead it is about (`leadIdOf`), or null. */
  leadId: number | null;
  createdAt: Date;
}

/**
 * The writes of `webhook_event` (docs/webhooks.md#events): events recorded in the caller's
 * transaction, and retention's deletes (docs/operations.md#retention), each event taking its
 * deliveries along (`ON DELETE CASCADE`).
 */
@Injectable()
export class WebhookEventsRepository {
  /**
   * Inserts events in the caller's transaction, in one INSERT (docs/webhooks.md#events).
   * @param traceContext the trace context the events are recorded in, stored with each
   *   (docs/operations.md#traces); null when tracing is off.
   */
  async insertEvents(
    manager: EntityManager,
    campaignId: number,
    events: NewEvent[],
    traceContext: TraceCarrier | null = null,
  ): Promise<void> {
    if (events.length === 0) return;
    await manager.query(
      `INSERT INTO webhook_event (id, campaign_id, type, body, lead_id, created_at, trace_context)
       SELECT e.id, $1, e.type, e.body, e.lead_id, e.created_at, $7::jsonb
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[])
              AS e(id, type, body, lead_id, created_at)`,
      [
        campaignId,
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => e.body),
        events.map((e) => e.leadId),
        events.map((e) => e.createdAt),
        traceContext === null ? null : JSON.stringify(traceContext),
      ],
    );
  }

  /**
   * Deletes at most `limit` events recorded before `cutoff`, oldest first; each takes its
   * deliveries along (`ON DELETE CASCADE`).
   * @param session the caller's session: the statement runs there.
   * @returns how many events it deleted.
   */
  async deleteCreatedBefore(session: EntityManager, cutoff: Date, limit: number): Promise<number> {
    const [, count]: [unknown, number] = await session.query(
      `DELETE FROM webhook_event WHERE id IN (
         SELECT id FROM webhook_event WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
      [cutoff, limit],
    );
    return count;
  }

  /**
   * Redacts the events about `leadIds`, in the caller's transaction (an erasure,
   * docs/privacy.md#erasure): the body keeps its type and timestamp, and its `data` only the
   * lead's id and `"erased": true`. Read through `idx_webhook_event_lead_id`.
   * @returns the redacted events' ids.
   */
  async redactLeadEvents(manager: EntityManager, leadIds: number[]): Promise<string[]> {
    const [rows]: [Array<{ id: string }>] = await manager.query(
      `UPDATE webhook_event
          SET body = jsonb_set(body::jsonb, '{data}', jsonb_build_object('id', lead_id, 'erased', true))::text
        WHERE lead_id = ANY($1::bigint[])
       RETURNING id`,
      [leadIds],
    );
    return rows.map((row) => row.id);
  }
}
