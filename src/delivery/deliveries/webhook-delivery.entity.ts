import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Unique,
} from 'typeorm';
import type { WebhookEndpoint } from '../../webhooks';
import { WebhookEvent } from './webhook-event.entity';
import { bigintToNumber } from '../../database/transformers';

/**
 * Where a delivery stands (docs/webhooks.md#events): waiting for its next attempt, done, given
 * up, dropped (its endpoint was disabled or deleted before an attempt), or skipped (its
 * endpoint was disabled when the event was recorded: never queued nor attempted).
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dropped' | 'skipped';

/**
 * Why a delivery ended as it did, where its status alone does not say
 * (docs/webhooks.md#transformations): `transformation`, skipped because the endpoint's
 * transformation returned null (nothing sent); `transformation_error`, failed on the
 * transformation (a throw, a time, memory or output limit, a wrong return shape), not retried on
 * the schedule (recovery scope `transformation_errors`); `erased`, skipped because an erasure
 * removed the person it carried before it was sent (docs/privacy.md#erasure).
 */
export type DeliveryStatusReason = 'transformation' | 'transformation_error' | 'erased';

/**
 * One event to one endpoint (docs/webhooks.md): its status, how many attempts ran, and when the
 * next one is due. Its id is the BullMQ job id, so queuing it twice never doubles it.
 */
@Entity({ name: 'webhook_delivery' })
@Unique('uq_webhook_delivery_event_id_endpoint_id', ['eventId', 'endpointId'])
@Index('idx_webhook_delivery_pending', ['nextAttemptAt'], { where: `status = 'pending'` })
// An endpoint's deliveries by creation time: the delivery ledger's window
// (docs/dashboard.md#delivery-ledger), and the endpoint's foreign key (its leading column).
@Index('idx_webhook_delivery_endpoint_id_created_at', ['endpointId', 'createdAt'])
// Bulk recovery (docs/webhooks.md#bulk-recovery): counting an endpoint's failed deliveries since
// a time, and walking them by id.
@Index('idx_webhook_delivery_failed_created', ['endpointId', 'createdAt'], {
  where: `status = 'failed'`,
})
@Index('idx_webhook_delivery_failed_id', ['endpointId', 'id'], { where: `status = 'failed'` })
// Replaying what an endpoint missed (docs/webhooks.md#replaying-missed-deliveries): the same two
// over the deliveries a `missed` recovery covers.
@Index('idx_webhook_delivery_missed_created', ['endpointId', 'createdAt'], {
  where: `status IN ('failed', 'skipped', 'dropped')`,
})
@Index('idx_webhook_delivery_missed_id', ['endpointId', 'id'], {
  where: `status IN ('failed', 'skipped', 'dropped')`,
})
// Both recoveries also cover pending deliveries waiting on a retry (a failed attempt at least):
// counted since a time and walked by id over this one.
@Index('idx_webhook_delivery_retrying_id', ['endpointId', 'id'], {
  where: `status = 'pending' AND attempt_count > 0`,
})
// Per-lead ordering (docs/webhooks.md#per-lead-ordering): the pending deliveries of a lead to an
// ordered endpoint, walked by id to find the one a delivery waits behind; and those held behind
// a delivery, released when it ends (the trigger of migration PerLeadOrdering).
@Index('idx_webhook_delivery_lead_pending', ['endpointId', 'leadId', 'id'], {
  where: `status = 'pending' AND lead_id IS NOT NULL`,
})
@Index('idx_webhook_delivery_held_by', ['heldBy'], { where: `held_by IS NOT NULL` })
// The recovery of deliveries that failed on their endpoint's transformation (scope
// `transformation_errors`, docs/webhooks.md#transformations), walked by id.
@Index('idx_webhook_delivery_transformation_failed_id', ['endpointId', 'id'], {
  where: `status = 'failed' AND status_reason = 'transformation_error'`,
})
export class WebhookDelivery {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintToNumber })
  id!: number;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @ManyToOne(() => WebhookEvent, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'fk_webhook_delivery_event' })
  event?: WebhookEvent;

  @Column({ name: 'endpoint_id', type: 'integer' })
  endpointId!: number;

  @ManyToOne('WebhookEndpoint', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'fk_webhook_delivery_endpoint' })
  endpoint?: WebhookEndpoint;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: DeliveryStatus;

  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /**
   * Until when it waits on its endpoint's throttle (docs/webhooks.md#throttling): set when an
   * attempt was put back for the throttle, left as it was by the attempt that follows. The
   * delivery waits on the throttle while it is pending, this is set and not before
   * `next_attempt_at` (a failed attempt moves `next_attempt_at` past it: then it waits on a retry).
   */
  @Column({ name: 'throttled_until', type: 'timestamptz', nullable: true })
  throttledUntil!: Date | null;

  /**
   * The lead its event names, on a delivery to an endpoint with `ordering = 'per_lead'`
   * (docs/webhooks.md#per-lead-ordering); null on every other delivery, which is never held.
   */
  @Column({ name: 'lead_id', type: 'bigint', nullable: true, transformer: bigintToNumber })
  leadId!: number | null;

  /**
   * The earlier delivery of the same lead to the same endpoint it waits behind, while it is held
   * (then `next_attempt_at` is null); null otherwise. Cleared, and the delivery made due, in the
   * transaction that ends that delivery.
   */
  @Column({ name: 'held_by', type: 'bigint', nullable: true, transformer: bigintToNumber })
  heldBy!: number | null;

  /** Why it ended as it did where {@link status} alone does not say; null otherwise. */
  @Column({ name: 'status_reason', type: 'varchar', length: 24, nullable: true })
  statusReason!: DeliveryStatusReason | null;
}
