import type { INestApplicationContext } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { httpDrainOf } from './common/http-drain';
import type { ShutdownStep } from './common/graceful-shutdown';
import { DeliveryDispatcher } from './delivery/outbox';
import { DeliveryProcessor, DeliverySweeper } from './delivery/worker';
import { shutdownTracing, tracingOn } from './tracing/trace-hooks';

/**
 * The ordered shutdown of an API or worker process (docs/reliability.md "Shutdown"):
 * 1. HTTP: stop accepting connections, finish in-flight requests (answered with
 *    `Connection: close`), close keep-alive connections as they go idle (≤ 10 s);
 * 2. delivery worker: stop sweeping and taking jobs, finish the attempts under way and record
 *    them (≤ `WEBHOOK_TIMEOUT_MS` plus the write);
 * 3. queue: wait for the enqueues of deliveries committed by step 1's requests;
 * 4. traces (when tracing is on): export the spans still buffered (≤ 3 s, docs/operations.md#traces);
 * then `app.close()` closes the queue, the webhook HTTP client, Redis and the pools.
 */
/** @param worker whether the process runs the delivery worker (`RUN_WORKER`, or `worker.ts`). */
export function shutdownSequence(
  app: INestApplicationContext,
  { worker }: { worker: boolean },
): ShutdownStep[] {
  const steps: ShutdownStep[] = [];
  const http = (app as Partial<NestFastifyApplication>).getHttpAdapter?.().getInstance();
  const drain = http ? httpDrainOf(http) : undefined;
  if (drain) steps.push({ name: 'HTTP requests', run: () => drain.drain() });
  if (worker) {
    const sweeper = app.get(DeliverySweeper, { strict: false });
    const processor = app.get(DeliveryProcessor, { strict: false });
    steps.push({
      name: 'delivery attempts',
      run: async () => {
        sweeper.stop();
        await processor.stopTakingJobs();
      },
    });
  }
  const dispatcher = app.get(DeliveryDispatcher, { strict: false });
  steps.push({ name: 'queued deliveries', run: () => dispatcher.drain() });
  if (tracingOn()) steps.push({ name: 'traces', run: () => shutdownTracing() });
  return steps;
}
