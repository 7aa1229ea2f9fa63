import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { microsecondsOf, timestampFromMicroseconds, type LogPosition } from '../attempts';
import type { DeliveryStatus } from '../deliveries';

/** A delivery of an event about a lead, with its position in the timeline's order. */
export interface LeadDeliveryRow {
  id: number;
  /** The event's id: the `webhook-id` of every attempt. */
  webhook_id: string;
  event_type: string;
  endpoint_id: number;
  status: DeliveryStatus;
  attempt_count: number;
  created_at: Date;
  /**
   * While it waits behind an earlier delivery of the lead to the same ordered endpoint, that
   * delivery's id (docs/webhooks.md#per-lead-ordering); null otherwise.
   */
  held_by: number | null;
  /** The attempts' partition key: `created_at` to the millisecond. */
  partitionKey: Date;
  position: LogPosition;
}

/** One attempt of a delivery, as the lead's timeline shows it. */
export interface LeadAttemptRow {
  id: number;
  delivery_id: number;
  attempted_at: Date;
  finished_at: Date | null;
  duration_ms: number;
  status_code: number | null;
  success: boolean;
  error: string | null;
}

/**
 * Reads the deliveries of the events about a lead (docs/dashboard.md#a-leads-page): events by
 * `idx_webhook_event_lead_id`, their deliveries by `uq_webhook_delivery_event_id_endpoint_id`,
 * the attempts by `uq_webhook_delivery_attempt_number` (led by `delivery_id`) in the partitions
 * of the deliveries' days only.
 */
@Injectable()
export class LeadDeliveriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Up to `limit` deliveries of the events of campaign `campaignId` about lead `leadId`, newest
   * first by (`created_at`, `id`), after `after` when given.
   */
  async deliveries(
    campaignId: number,
    leadId: number,
    limit: number,
    after: LogPosition | null,
  ): Promise<LeadDeliveryRow[]> {
    const params: unknown[] = [leadId, campaignId, limit];
    const param = (value: unknown) => `$${params.push(value)}`;
    const resume = after
      ? `AND (d.created_at, d.id) < (${timestampFromMicroseconds(param(after.attemptedAtUs))}, ${param(after.id)}::bigint)`
      : '';
    const rows: Array<
      Omit<LeadDeliveryRow, 'id' | 'partitionKey' | 'position' | 'held_by'> & {
        id: string;
        held_by: string | null;
        partition_key: Date;
        created_at_us: string;
      }
    > = await this.dataSource.query(
      `SELECT d.id, e.id AS webhook_id, e.type AS event_type, d.endpoint_id, d.status,
              d.attempt_count, d.created_at, d.held_by,
              date_trunc('milliseconds', d.created_at) AS partition_key,
              ${microsecondsOf('d.created_at')} AS created_at_us
         FROM webhook_event e JOIN webhook_delivery d ON d.event_id = e.id
        WHERE e.lead_id = $1 AND e.campaign_id = $2 ${resume}
        ORDER BY d.created_at DESC, d.id DESC
        LIMIT $3`,
      params,
    );
    return rows.map(({ partition_key, created_at_us, ...row }) => ({
      ...row,
      id: Number(row.id),
      held_by: row.held_by === null ? null : Number(row.held_by),
      partitionKey: partition_key,
      position: { attemptedAtUs: created_at_us, id: Number(row.id) },
    }));
  }

  /** Every attempt of `deliveries`, newest first by (`attempted_at`, `id`). */
  async attempts(deliveries: LeadDeliveryRow[]): Promise<LeadAttemptRow[]> {
    if (deliveries.length === 0) return [];
    const rows: Array<LeadAttemptRow & { id: string; delivery_id: string }> =
      await this.dataSource.query(
        `SELECT a.id, a.delivery_id, a.attempted_at, a.finished_at, a.duration_ms, a.status_code,
                a.success, a.error
           FROM webhook_delivery_attempt a
          WHERE a.delivery_id = ANY($1::bigint[]) AND a.delivery_created_at = ANY($2::timestamptz[])
          ORDER BY a.attempted_at DESC, a.id DESC`,
        [deliveries.map((d) => d.id), deliveries.map((d) => d.partitionKey)],
      );
    return rows.map((row) => ({
      ...row,
      id: Number(row.id),
      delivery_id: Number(row.delivery_id),
    }));
  }
}
