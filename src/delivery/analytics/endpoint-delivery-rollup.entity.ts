import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { WebhookEndpoint } from '../../webhooks';
import type { RollupPeriod } from './delivery-rollup';

/**
 * One endpoint's delivery attempts over one minute, hour or day (docs/delivery-analytics.md):
 * counts by outcome and failure class, summed duration, and log-spaced histograms of latency
 * and of end-to-end lag. Written in the transaction that records the attempts, so it always
 * agrees with them; charts and percentiles read these rows, never the attempts.
 */
@Entity({ name: 'endpoint_delivery_rollup' })
/** Retention prunes expired rows by period and age (docs/operations.md#retention). */
@Index('idx_endpoint_delivery_rollup_period_bucket_start', ['period', 'bucketStart'])
export class EndpointDeliveryRollup {
  @PrimaryColumn({ name: 'endpoint_id', type: 'integer' })
  endpointId!: number;

  @ManyToOne('WebhookEndpoint', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'endpoint_id',
    foreignKeyConstraintName: 'fk_endpoint_delivery_rollup_endpoint',
  })
  endpoint?: WebhookEndpoint;

  /** `minute`, `hour` or `day`. */
  @PrimaryColumn({ type: 'varchar', length: 6 })
  period!: RollupPeriod;

  /** Start of the period (UTC). */
  @PrimaryColumn({ name: 'bucket_start', type: 'timestamptz' })
  bucketStart!: Date;

  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ type: 'integer' })
  successes!: number;

  @Column({ type: 'integer' })
  timeouts!: number;

  @Column({ name: 'connection_errors', type: 'integer' })
  connectionErrors!: number;

  /** 3xx answers (redirects are never followed). */
  @Column({ type: 'integer' })
  redirects!: number;

  /** 4xx answers. */
  @Column({ name: 'client_errors', type: 'integer' })
  clientErrors!: number;

  /** 5xx answers. */
  @Column({ name: 'server_errors', type: 'integer' })
  serverErrors!: number;

  /** Other failures: other statuses, unsigned requests, attempts of unknown outcome. */
  @Column({ name: 'other_failures', type: 'integer' })
  otherFailures!: number;

  /** Sum of the attempts' durations, ms. */
  @Column({ name: 'duration_sum_ms', type: 'double precision' })
  durationSumMs!: number;

  /**
   * Attempt durations: the counts of buckets lo … hi in an array whose lower bound is lo
   * (`[42:44]={3,0,1}`; `{}` when empty; see `BucketCounts`). Read through
   * `DeliveryRollupRepository`, which keeps the lower bound (an array read through the entity
   * would start at 1).
   */
  @Column({ type: 'integer', array: true })
  latency!: number[];

  /** Deliveries whose first successful attempt is counted here. */
  @Column({ name: 'first_successes', type: 'integer' })
  firstSuccesses!: number;

  /** Event recorded → first successful attempt, ms, stored as `latency` is. */
  @Column({ type: 'integer', array: true })
  lag!: number[];

  /**
   * What a chart reads of this row but its summed duration, as one line of text (see
   * `parseChartLine`): rendered from the columns above by the trigger `endpoint_delivery_rollup_chart_line` on every insert and
   * update, never written directly.
   */
  @Column({ name: 'chart_line', type: 'text' })
  chartLine!: string;
}
