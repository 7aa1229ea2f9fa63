import { DiscoveryService } from '@nestjs/core';

/**
 * A queue whose jobs the metrics count at scrape time (docs/operations.md#metrics). The metrics
 * module imports no feature: the feature that registers a queue provides one of these, marked
 * `@MetricsSource()`, in its own module, and `OperationalGauges` finds it with Nest's
 * `DiscoveryService` among the providers of the process.
 */
export interface QueueJobsSource {
  /** The queue's name: the `queue` label of `campaign_api_queue_jobs`. */
  readonly queueName: string;
  /**
   * How many jobs the queue holds in each of `states` (BullMQ's `getJobCounts`).
   * @throws what Redis threw: the gauge counts a collection error and keeps its last values.
   */
  jobCounts(...states: string[]): Promise<Record<string, number>>;
}

/** Marks a provider as a {@link QueueJobsSource} the metrics read at scrape time. */
export const MetricsSource = DiscoveryService.createDecorator<{ kind: 'queue-jobs' }>();
