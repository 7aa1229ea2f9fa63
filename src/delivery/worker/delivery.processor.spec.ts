import type { Worker } from 'bullmq';
import type { AppConfig } from '../../config/app-config';
import type { DeploymentIdentity } from '../../database/deployment-identity';
import { DeliveryProcessor } from './delivery.processor';
import type { ScheduledAttempts } from './scheduled-attempts.service';

/** A processor over a stand-in BullMQ worker, with `WEBHOOK_TIMEOUT_MS` = `timeoutMs`. */
function processorWith(worker: Partial<Worker>, timeoutMs: number) {
  const scheduled = { stopStartingAttempts: jest.fn() };
  const processor = new DeliveryProcessor(
    scheduled as unknown as ScheduledAttempts,
    { webhookTimeoutMs: timeoutMs } as AppConfig,
    {} as DeploymentIdentity,
  );
  // WorkerHost keeps the worker @nestjs/bullmq gives it here.
  (processor as unknown as { _worker: Partial<Worker> })._worker = worker;
  return { processor, scheduled };
}

describe('DeliveryProcessor.stopTakingJobs', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('returns as soon as the worker has closed, without cutting its connections', async () => {
    const worker = { close: jest.fn().mockResolvedValue(undefined), disconnect: jest.fn() };
    const { processor, scheduled } = processorWith(worker, 1_000);
    await processor.stopTakingJobs();
    expect(scheduled.stopStartingAttempts).toHaveBeenCalledTimes(1);
    expect(worker.close).toHaveBeenCalledTimes(1);
    expect(worker.disconnect).not.toHaveBeenCalled();
  });

  it('cuts the Redis connections of a worker whose close never ends, WEBHOOK_TIMEOUT_MS + 5 s after it began, and returns 2 s later', async () => {
    const worker = {
      close: jest.fn(() => new Promise<void>(() => undefined)),
      disconnect: jest.fn().mockResolvedValue(undefined),
    };
    const { processor } = processorWith(worker, 1_000);
    let returned = false;
    const stopping = processor.stopTakingJobs().then(() => (returned = true));

    await jest.advanceTimersByTimeAsync(5_999);
    expect(worker.disconnect).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(worker.disconnect).toHaveBeenCalledTimes(1);
    expect(returned).toBe(false);
    await jest.advanceTimersByTimeAsync(2_000);
    await stopping;
    expect(returned).toBe(true);
  });

  it('never throws, even when the worker fails to close', async () => {
    const worker = {
      close: jest.fn().mockRejectedValue(new Error('Connection is closed.')),
      disconnect: jest.fn(),
    };
    const { processor } = processorWith(worker, 1_000);
    await expect(processor.stopTakingJobs()).resolves.toBeUndefined();
    expect(worker.disconnect).not.toHaveBeenCalled();
  });
});
