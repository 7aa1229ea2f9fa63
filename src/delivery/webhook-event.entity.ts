import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Campaign } from '../campaigns/campaign.entity';

/**
 * The transactional outbox: one recorded event (docs/webhooks.md). `id` is the `webhook-id` of
 * every delivery of it, retries included. `body` holds the exact JSON bytes sent and signed:
 * `{"type", "timestamp", "data"}`.
 */
@Entity({ name: 'webhook_event' })
@Index('idx_webhook_event_campaign_id_created_at', ['campaignId', 'createdAt'])
/** Retention deletes expired events by age (docs/operations.md#retention). */
@Index('idx_webhook_event_created_at', ['createdAt'])
export class WebhookEvent {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'campaign_id', type: 'integer' })
  campaignId!: number;

  @ManyToOne(() => Campaign, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'campaign_id', foreignKeyConstraintName: 'fk_webhook_event_campaign' })
  campaign?: Campaign;

  @Column({ type: 'varchar', length: 64 })
  type!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
