import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { WebhookEndpoint } from './webhook-endpoint.entity';

/**
 * One saved version of an endpoint's transformation (docs/webhooks.md#transformations): every
 * save, restore included, adds the next version and keeps the earlier ones, so the dashboard
 * can show the history, the difference between two versions and restore one. Deleted with its
 * endpoint.
 */
@Entity({ name: 'webhook_transformation_version' })
export class TransformationVersion {
  @PrimaryColumn({
    name: 'endpoint_id',
    type: 'integer',
    primaryKeyConstraintName: 'pk_webhook_transformation_version',
  })
  endpointId!: number;

  @ManyToOne('WebhookEndpoint', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'endpoint_id',
    foreignKeyConstraintName: 'fk_webhook_transformation_version_endpoint',
  })
  endpoint?: WebhookEndpoint;

  /** 1 for the endpoint's first save, then one more per save. */
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_webhook_transformation_version' })
  version!: number;

  /** The JavaScript saved, at most 64 KiB of UTF-8. */
  @Column({ type: 'text' })
  code!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Who saved it: a dashboard user's email, or `cli` for an operator. */
  @Column({ name: 'created_by', type: 'varchar', length: 320, nullable: true })
  createdBy!: string | null;

  /** The version this one restored, when it was saved by restoring one; null otherwise. */
  @Column({ name: 'restored_from', type: 'integer', nullable: true })
  restoredFrom!: number | null;
}
