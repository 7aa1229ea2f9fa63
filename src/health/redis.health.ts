import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { Queue } from 'bullmq';
import { DELIVERY_QUEUE } from '../delivery/outbox';

/** Readiness of Redis (docs/operations.md): a PING on the delivery queue's connection within `timeoutMs`. */
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
      const ping = (async () => {
        const client = (await this.queue.getBackend().client) as unknown as {
          ping(): Promise<string>;
        };
        await client.ping();
      })();
      await Promise.race([
        ping,
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
