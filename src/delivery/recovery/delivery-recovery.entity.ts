import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { WebhookEndpoint } from '../../webhooks';
import { bigintToNumber } from '../../database/transformers';

/** Where a bulk recovery stands (docs/webhooks.md#bulk-recovery). */
export type RecoveryStatus = 'running' | 'done' | 'cancelled';

/**
 * What a recovery covers: `failed` deliveries (a bulk recovery, docs/webhooks.md#bulk-recovery),
 * or every delivery the endpoint `missed`, those `failed`, `skipped` (recorded while it was
 * disabled) and `dropped` (disabled before their attempt): a replay
 * (docs/webhooks.md#replaying-missed-deliveries).
 */
export const RECOVERY_SCOPES = ['failed', 'missed', 'transformation_errors'] as const;

/** One of {@link RECOVERY_SCOPES}. */
export type RecoveryScope = (typeof RECOVERY_SCOPES)[number];

/**
 * One bulk recovery of an endpoint's failed deliveries (docs/webhooks.md#bulk-recovery), or a
 * replay of the deliveries it missed (`scope` `missed`): the deliveries it covers (of its
 * scope's statuses, created at or after `since`, id at most `last_delivery_id`, as
 * counted when it started), how far the worker got (`cursor_delivery_id`, `processed`), and the
 * batch it queued last (`batch_delivery_ids`), which must leave `pending` before the next batch
 * is taken. At most one recovery per endpoint is `running` (a unique partial index).
 */
@Entity({ name: 'delivery_recovery' })
@Index('uq_delivery_recovery_running', ['endpointId'], {
  unique: true,
  where: `status = 'running'`,
})
@Index('idx_delivery_recovery_endpoint', ['endpointId', 'id'])
@Check('chk_delivery_recovery_scope', `"scope" IN ('failed', 'missed', 'transformation_errors')`)
export class DeliveryRecovery {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ name: 'endpoint_id', type: 'integer' })
  endpointId!: number;

  @ManyToOne('WebhookEndpoint', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'fk_delivery_recovery_endpoint' })
  endpoint?: WebhookEndpoint;

  @Column({ type: 'timestamptz' })
  since!: Date;

  @Column({ type: 'varchar', length: 16 })
  status!: RecoveryStatus;

  /** The statuses it covers ({@link RECOVERY_SCOPES}). */
  @Column({ type: 'varchar', length: 24, default: 'failed' })
  scope!: RecoveryScope;

  /** Deliveries of its scope counted at the start. */
  @Column({ type: 'integer' })
  total!: number;

  /** Deliveries moved back to `pending` so far. */
  @Column({ type: 'integer', default: 0 })
  processed!: number;

  /** The highest delivery id counted at the start: no later delivery is touched. */
  @Column({ name: 'last_delivery_id', type: 'bigint', transformer: bigintToNumber })
  lastDeliveryId!: number;

  /** The highest delivery id handled so far (the batches' cursor, by id). */
  @Column({ name: 'cursor_delivery_id', type: 'bigint', transformer: bigintToNumber })
  cursorDeliveryId!: number;

  /** The deliveries of the last batch: the next batch waits until none is `pending`. */
  @Column({ name: 'batch_delivery_ids', type: 'bigint', array: true, default: () => "'{}'" })
  batchDeliveryIds!: string[];

  /** When the last batch was queued. */
  @Column({ name: 'batch_queued_at', type: 'timestamptz', nullable: true })
  batchQueuedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}

/**
 * One delivery a recovery covers, fixed when it starts (docs/webhooks.md#bulk-recovery): the
 * recovery walks these by id and sends again those still of its scope when their batch comes, so
 * a delivery that fails while it runs never joins it, and `processed` never exceeds `total`.
 * Removed when the recovery ends.
 */
@Entity({ name: 'delivery_recovery_delivery' })
export class DeliveryRecoveryDelivery {
  @PrimaryColumn({
    name: 'recovery_id',
    type: 'integer',
    primaryKeyConstraintName: 'pk_delivery_recovery_delivery',
  })
  recoveryId!: number;

  @ManyToOne(() => DeliveryRecovery, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'recovery_id',
    foreignKeyConstraintName: 'fk_delivery_recovery_delivery_recovery',
  })
  recovery?: DeliveryRecovery;

  /** A `webhook_delivery` id (no foreign key: a delivery deleted meanwhile is just not found). */
  @PrimaryColumn({
    name: 'delivery_id',
    type: 'bigint',
    transformer: bigintToNumber,
    primaryKeyConstraintName: 'pk_delivery_recovery_delivery',
  })
  deliveryId!: number;
}
