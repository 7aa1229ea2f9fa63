import { Injectable, Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Pool } from 'pg';
import { MetricsSource, type QueueJobsSource } from '../common/metrics-source';
import { cachedLookup } from './cached-lookup';
import { OperationalStateRepository, type StateRow } from './operational-state.repository';
import { Metrics } from './metrics.service';

/** How long one look-up of the outbox, the endpoints and the jobs serves scrapes, in ms. */
export const STATE_CACHE_MS = 5_000;
/** How long one look-up of the attempts' partition sizes serves scrapes, in ms. */
export const PARTITIONS_CACHE_MS = 60_000;
/** The BullMQ job states exported by `campaign_api_queue_jobs`. */
export const QUEUE_STATES = ['waiting', 'delayed', 'active', 'failed'] as const;

/**
 * The gauges read at scrape time (docs/operations.md#metrics): the outbox backlog, the
 * delivery queue's jobs by state, failing and disabled endpoints, running spreadsheet imports
 * and recoveries, the attempts' partitions on disk, and this process's PostgreSQL pool. The
 * database and Redis are asked at most once per {@link STATE_CACHE_MS} (partitions:
 * {@link PARTITIONS_CACHE_MS}) however many scrapes arrive. A look-up that fails is counted in
 * `campaign_api_metrics_collection_errors_total` and leaves its gauges at their last values:
 * a scrape never fails because PostgreSQL or Redis is down.
 *
 * The outbox, queue, endpoint, job and partition gauges describe the whole deployment, so
 * every process exports the same values: aggregate them with `max`, not `sum`.
 */
@Injectable()
export class OperationalGauges {
  private readonly logger = new Logger(OperationalGauges.name);
  private readonly state = cachedLookup(STATE_CACHE_MS, () => this.repository.readState());
  private readonly partitions = cachedLookup(PARTITIONS_CACHE_MS, () =>
    this.repository.readPartitions(),
  );
  private readonly jobCounts = cachedLookup(STATE_CACHE_MS, () =>
    Promise.all(
      this.queueSources().map(async (source) => ({
        queue: source.queueName,
        counts: await source.jobCounts(...QUEUE_STATES),
      })),
    ),
  );
  private sources?: QueueJobsSource[];

  constructor(
    metrics: Metrics,
    private readonly repository: OperationalStateRepository,
    private readonly discovery: DiscoveryService,
  ) {
    const fromState = (read: (row: StateRow) => number | null) =>
      async function (this: { set(value: number): void }) {
        const row = await lookUp('database', state);
        if (row) this.set(read(row) ?? 0);
      };
    const lookUp = async <T>(source: string, load: () => Promise<T>): Promise<T | null> => {
      try {
        return await load();
      } catch (error) {
        metrics.collectionErrors.inc({ source });
        this.logger.warn(`Metrics look-up (${source}) failed: ${(error as Error).message}`);
        return null;
      }
    };
    const state = this.state;
    const partitions = this.partitions;
    const jobCounts = this.jobCounts;

    metrics.gauge(
      'delivery_backlog_pending',
      'Deliveries pending in the outbox: due now, or waiting for a retry.',
      [],
      fromState((row) => Number(row.pending)),
    );
    metrics.gauge(
      'delivery_backlog_due',
      'Pending deliveries that are due now (not waiting for a retry).',
      [],
      fromState((row) => Number(row.due)),
    );
    metrics.gauge(
      'delivery_backlog_oldest_due_age_seconds',
      'How long the pending delivery due the longest has been due; 0 when none is due.',
      [],
      fromState((row) => Math.max(0, row.oldest_due_age_seconds ?? 0)),
    );
    metrics.gauge(
      'endpoints_failing',
      'Enabled webhook endpoints in the failing state.',
      [],
      fromState((row) => row.failing),
    );
    metrics.gauge(
      'endpoints_disabled',
      'Disabled webhook endpoints (any reason).',
      [],
      fromState((row) => row.disabled),
    );
    metrics.gauge(
      'spreadsheet_imports_running',
      'Spreadsheet imports running.',
      [],
      fromState((row) => row.imports_running),
    );
    metrics.gauge(
      'recoveries_running',
      'Bulk recoveries and replays running.',
      [],
      fromState((row) => row.recoveries_running),
    );
    metrics.gauge(
      'attempt_partitions',
      "Partitions of the delivery attempts' table.",
      [],
      async function () {
        const row = await lookUp('database', partitions);
        if (row) this.set(row.partitions);
      },
    );
    metrics.gauge(
      'attempt_partitions_size_bytes',
      "Size on disk of the delivery attempts' partitions, indexes and TOAST included.",
      [],
      async function () {
        const row = await lookUp('database', partitions);
        if (row) this.set(Number(row.bytes));
      },
    );
    metrics.gauge(
      'queue_jobs',
      'Jobs of the delivery queue by state.',
      ['queue', 'state'],
      async function () {
        const queues = await lookUp('redis', jobCounts);
        if (!queues) return;
        for (const { queue, counts } of queues) {
          for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
        }
      },
    );
    const pool = () => this.repository.pool();
    metrics.gauge(
      'db_pool_connections',
      "Connections of this process's PostgreSQL pool, by state (idle, in_use).",
      ['state'],
      function () {
        const p = pool();
        if (!p) return;
        this.set({ state: 'idle' }, p.idleCount);
        this.set({ state: 'in_use' }, p.totalCount - p.idleCount);
      },
    );
    metrics.gauge(
      'db_pool_max_connections',
      "Most connections this process's PostgreSQL pool opens.",
      [],
      function () {
        const p = pool() as (Pool & { options?: { max?: number } }) | undefined;
        if (p?.options?.max !== undefined) this.set(p.options.max);
      },
    );
    metrics.gauge(
      'db_pool_waiting_clients',
      'Queries of this process waiting for a connection of its PostgreSQL pool.',
      [],
      function () {
        const p = pool();
        if (p) this.set(p.waitingCount);
      },
    );
  }

  /**
   * The queues of the process's features, marked `@MetricsSource()` in their own modules (the
   * delivery queue's `DeliveryQueueJobs`): found once, at the first scrape.
   */
  private queueSources(): QueueJobsSource[] {
    this.sources ??= this.discovery
      .getProviders({ metadataKey: MetricsSource.KEY })
      .map((wrapper) => wrapper.instance as QueueJobsSource)
      .filter((instance) => instance !== undefined && instance !== null);
    return this.sources;
  }
}
