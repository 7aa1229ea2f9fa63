import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { WebhookEndpoint } from '../../webhooks';
import type { WebhookDelivery } from '../deliveries';
import { bigintToNumber } from '../../database/transformers';

/**
 * One HTTP attempt (docs/webhooks.md): a delivery's first try, a retry, a redelivery, or a test
 * message, ping or example event (`deliveryId` null). `durationMs` runs to the response status
 * or to the failure; a timeout is recorded as failed with the full limit.
 *
 * The delivery log (docs/dashboard.md#delivery-log) reads an endpoint's attempts newest first
 * through two indexes: `idx_webhook_delivery_attempt_log` (endpoint, success, time, id; also the
 * index of the endpoint foreign key) and, to filter by type, the partial
 * `idx_webhook_delivery_attempt_log_event_type` (endpoint, type, success, time, id).
 */
@Entity({ name: 'webhook_delivery_attempt' })
@Index('idx_webhook_delivery_attempt_log', ['endpointId', 'success', 'attemptedAt', 'id'])
@Index(
  'idx_webhook_delivery_attempt_log_event_type',
  ['endpointId', 'eventType', 'success', 'attemptedAt', 'id'],
  { where: 'finished_at IS NOT NULL' },
)
@Index('idx_webhook_delivery_attempt_unfinished', ['attemptedAt'], { where: 'finished_at IS NULL' })
@Index('uq_webhook_delivery_attempt_number', ['deliveryId', 'attemptNumber', 'deliveryCreatedAt'], {
  unique: true,
})
export class WebhookDeliveryAttempt {
  @PrimaryColumn({
    type: 'bigint',
    generated: 'increment',
    transformer: bigintToNumber,
    primaryKeyConstraintName: 'PK_webhook_delivery_attempt',
  })
  id!: number;

  /**
   * The partition key (docs/operations.md#retention): the delivery's creation time, or the
   * attempt's own for attempts without a delivery, to the millisecond. Every attempt of a delivery shares it, so
   * they live in one daily partition and are dropped together with it. The service always sets
   * it; the default, the time of the insert, serves rows written by hand.
   */
  @PrimaryColumn({
    name: 'delivery_created_at',
    type: 'timestamptz',
    default: () => 'now()',
    primaryKeyConstraintName: 'PK_webhook_delivery_attempt',
  })
  deliveryCreatedAt!: Date;

  @Column({ name: 'endpoint_id', type: 'integer' })
  endpointId!: number;

  @ManyToOne('WebhookEndpoint', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'endpoint_id',
    foreignKeyConstraintName: 'fk_webhook_delivery_attempt_endpoint',
  })
  endpoint?: WebhookEndpoint;

  @Column({ name: 'delivery_id', type: 'bigint', nullable: true, transformer: bigintToNumber })
  deliveryId!: number | null;

  /**
   * No foreign key (docs/decisions.md#retention): deleting a delivery would have to look for
   * its attempts in every partition. A delivery's attempts are in its own day's partition and
   * go with it; an endpoint's go with the endpoint (the key above).
   */
  @ManyToOne('WebhookDelivery', { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'delivery_id' })
  delivery?: WebhookDelivery;

  /** The `webhook-id` sent: the event id, `ping_<uuid>` (ping) or `test_<uuid>` (test event). */
  @Column({ name: 'message_id', type: 'varchar', length: 64 })
  messageId!: string;

  /**
   * The `type` of the body sent, copied at insert so the log filters on it without a join: the
   * event's type, a test event's, or `ping`. Never NULL when the service writes the attempt.
   */
  @Column({ name: 'event_type', type: 'varchar', length: 64, nullable: true })
  eventType!: string | null;

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

  /** The URL the request went to (the endpoint's URL may change later). */
  @Column({ name: 'request_url', type: 'varchar', length: 2048, nullable: true })
  requestUrl!: string | null;

  /**
   * The headers sent, with every signature truncated (`v1,K5oZfzN95Z9U…`): never a whole
   * signature or a secret. `json`, not `jsonb`, to keep the order they were sent in. NULL for
   * attempts recorded before this column existed.
   */
  @Column({ name: 'request_headers', type: 'json', nullable: true })
  requestHeaders!: Record<string, string> | null;

  /**
   * The response's headers as received, bounded (at most 50 and 4,096 characters, each value
   * cut to 256) with `set-cookie` and credentials redacted (`boundedResponseHeaders`); NULL when
   * no response came, or for attempts recorded before this column existed.
   */
  @Column({ name: 'response_headers', type: 'json', nullable: true })
  responseHeaders!: Record<string, string> | null;

  /** The body sent, for attempts with no event row (pings, test events); else NULL. */
  @Column({ name: 'request_body', type: 'text', nullable: true })
  requestBody!: string | null;

  /**
   * For a scheduled attempt, its number among its delivery's attempts: the delivery's attempt
   * count when the job read it, plus one. Unique per delivery, so two queue jobs that read the
   * same state of a delivery begin one attempt between them (docs/reliability.md "One
   * scheduled attempt at a time"). NULL for redeliveries, test messages and attempts recorded
   * before this column existed (NULLs never collide). Its index, led by `delivery_id`, also
   * serves the delivery foreign key and the look-ups of a delivery's attempts.
   */
  @Column({ name: 'attempt_number', type: 'integer', nullable: true })
  attemptNumber!: number | null;

  /**
   * The version of its endpoint's transformation that shaped its request
   * (docs/webhooks.md#transformations); null when none did.
   */
  @Column({ name: 'transformation_version', type: 'integer', nullable: true })
  transformationVersion!: number | null;

  /** The request's method when a transformation chose PUT or PATCH; null: POST. */
  @Column({ name: 'request_method', type: 'varchar', length: 8, nullable: true })
  requestMethod!: string | null;
}
