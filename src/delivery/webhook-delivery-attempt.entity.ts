import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { WebhookEndpoint } from '../webhooks/webhook-endpoint.entity';
import { WebhookDelivery } from './webhook-delivery.entity';
import { bigintToNumber } from '../database/transformers';

/**
 * One HTTP attempt (docs/webhooks.md): a delivery's first try, a retry, a redelivery, or a test
 * ping (`deliveryId` null). `durationMs` runs to the response status or to the failure; a
 * timeout is recorded as failed with the full limit.
 */
@Entity({ name: 'webhook_delivery_attempt' })
@Index('idx_webhook_delivery_attempt_endpoint_id_id', ['endpointId', 'id'])
@Index('idx_webhook_delivery_attempt_unfinished', ['attemptedAt'], { where: 'finished_at IS NULL' })
export class WebhookDeliveryAttempt {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintToNumber })
  id!: number;

  @Column({ name: 'endpoint_id', type: 'integer' })
  endpointId!: number;

  @ManyToOne(() => WebhookEndpoint, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'endpoint_id',
    foreignKeyConstraintName: 'fk_webhook_delivery_attempt_endpoint',
  })
  endpoint?: WebhookEndpoint;

  @Index('idx_webhook_delivery_attempt_delivery_id')
  @Column({ name: 'delivery_id', type: 'bigint', nullable: true, transformer: bigintToNumber })
  deliveryId!: number | null;

  @ManyToOne(() => WebhookDelivery, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'delivery_id',
    foreignKeyConstraintName: 'fk_webhook_delivery_attempt_delivery',
  })
  delivery?: WebhookDelivery;

  /** The `webhook-id` sent (the event id, or `ping_<uuid>` for a ping). */
  @Column({ name: 'message_id', type: 'varchar', length: 64 })
  messageId!: string;

  @Column({ name: 'attempted_at', type: 'timestamptz' })
  attemptedAt!: Date;

  /**
   * When the result was recorded; NULL while the attempt is in flight. An attempt is written
   * before its request is sent, so a send is never lost from the log (docs/reliability.md).
   */
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  @Column({ name: 'duration_ms', type: 'double precision' })
  durationMs!: number;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'boolean' })
  success!: boolean;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error!: string | null;

  /** At most 1 KiB of the response body. */
  @Column({ name: 'response_excerpt', type: 'varchar', length: 1024, nullable: true })
  responseExcerpt!: string | null;
}
