import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { MetricsSource, type QueueJobsSource } from '../../common/metrics-source';
import { DELIVERY_QUEUE } from './delivery.queue';

/**
 * The delivery queue's jobs by state, for the `campaign_api_queue_jobs` gauge
 * (docs/operations.md#metrics): found by the metrics' `OperationalGauges` among the process's
 * providers, so the metrics module imports nothing of delivery.
 */
@MetricsSource({ kind: 'queue-jobs' })
@Injectable()
export class DeliveryQueueJobs implements QueueJobsSource {
  readonly queueName = DELIVERY_QUEUE;

  constructor(@InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue) {}

  /** BullMQ's counts of the queue's jobs in each of `states`. */
  jobCounts(...states: string[]): Promise<Record<string, number>> {
    return this.queue.getJobCounts(...(states as Parameters<Queue['getJobCounts']>));
  }
}
