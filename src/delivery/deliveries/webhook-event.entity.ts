import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { Campaign } from '../../campaigns';
import { bigintToNumber } from '../../database/transformers';
import type { TraceCarrier } from '../../tracing/trace-hooks';

/**
 * The transactional outbox: one recorded event (docs/webhooks.md). `id` is the `webhook-id` of
 * every delivery of it, retries included. `body` holds the exact JSON bytes sent and signed:
 * `{"type", "timestamp", "data"}`.
 */
@Entity({ name: 'webhook_event' })
@Index('idx_webhook_event_campaign_id_created_at', ['campaignId', 'createdAt'])
/** Retention deletes expired events by age (docs/operations.md#retention). */
@Index('idx_webhook_event_created_at', ['createdAt'])
/** A lead's deliveries, for its timeline (docs/dashboard.md#a-leads-page). */
@Index('idx_webhook_event_lead_id', ['leadId'], { where: 'lead_id IS NOT NULL' })
export class WebhookEvent {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  @ManyToOne('Campaign', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_webhook_event_campaign' })
  campaign?: Campaign;

  @Column({ type: 'varchar', length: 64 })
  type!: string;

  @Column({ type: 'text' })
  body!: string;

  /**
   * The lead the event is about, when its data names one (`leadIdOf` in
   * webhook-event.publisher.ts): the `id` of a `lead.created` event's data, the `lead_id` of
   * the other types' data; null for `leads.bulk_created` and for data that names no lead. Not a
   * foreign key: the event keeps what was sent, whatever becomes of the lead.
   */
  @Column({ name: 'lead_id', type: 'bigint', nullable: true, transformer: bigintToNumber })
  leadId!: number | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /**
   * The W3C trace context (`{"traceparent", "tracestate"?}`) of the span that recorded the
   * event (an upload's request, a dashboard action, a CLI command), so that every attempt of
   * its deliveries is linked to it (docs/operations.md#traces); null when tracing is off.
   */
  @Column({ name: 'trace_context', type: 'jsonb', nullable: true })
  traceContext!: TraceCarrier | null;
}
