import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { WebhookEndpoint } from '../../webhooks';

/**
 * How many events an endpoint's payload filter left out on one UTC day
 * (docs/webhooks.md#payload-filters, the delivery ledger's `filtered` column): upserted in the
 * transaction that records the events, so it is exact; pruned with the events by retention.
 * `errors` is the part of `filtered` whose evaluation failed (docs/webhooks.md#when-a-filter-fails).
 */
@Entity({ name: 'endpoint_filtered_day' })
export class EndpointFilteredDay {
  @PrimaryColumn({
    name: 'endpoint_id',
    type: 'integer',
    primaryKeyConstraintName: 'pk_endpoint_filtered_day',
  })
  endpointId!: number;

  @ManyToOne('WebhookEndpoint', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'endpoint_id',
    foreignKeyConstraintName: 'fk_endpoint_filtered_day_endpoint',
  })
  endpoint?: WebhookEndpoint;

  /** The UTC day, `YYYY-MM-DD`. */
  @PrimaryColumn({ type: 'date', primaryKeyConstraintName: 'pk_endpoint_filtered_day' })
  day!: string;

  /** Events of a subscribed type the filter left out (no match, or an evaluation error). */
  @Column({ type: 'integer', default: 0 })
  filtered!: number;

  /** Of those, the events whose evaluation failed. */
  @Column({ type: 'integer', default: 0 })
  errors!: number;
}
