import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Queue } from 'bullmq';
import { DELIVERY_QUEUE } from '../delivery/outbox';

/**
 * Readiness of Redis (docs/operations.md#health-checks): a read of the delivery queue's own key
 * (`EXISTS` of its `meta` key) on the queue's connection within `timeoutMs`. On one Redis or
 * under Sentinel that is a round trip like a PING; on a Redis Cluster the read is routed to the
 * shard that holds the queue's keys (they share one slot, the queue prefix's hash tag), so a
 * shard without a primary makes the service not ready, where a PING, answered by any node,
 * did not.
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    @InjectQueue(DELIVERY_QUEUE) private readonly queue: Queue,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async pingCheck(key: string, timeoutMs: number): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    try {
      // The queue's own ioredis connection (BullMQ's Redis backend); waiting for it counts too.
      const read = (async () => {
        const client = (await this.queue.getBackend().client) as unknown as {
          exists(key: string): Promise<number>;
        };
        await client.exists(this.queue.toKey('meta'));
      })();
      await Promise.race([
        read,
        new Promise((_, reject) =>
          setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs,
          ).unref(),
        ),
      ]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }
}
