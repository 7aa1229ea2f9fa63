import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DeliveryRepository } from './delivery.repository';

const SWEEP_BATCH = 1000;

/**
 * Re-queues pending deliveries whose attempt is overdue (CONTRACT 6, at least once): those
 * committed but never queued (a crash after commit, Redis briefly down) and those whose job
 * Redis lost. Job ids make re-queuing an already queued delivery a no-op, so any number of
 * workers may sweep at once. Runs every `WEBHOOK_SWEEP_INTERVAL_MS` in each worker process.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliverySweeper.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly repository: DeliveryRepository,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.webhookSweepIntervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** One pass; returns how many deliveries it re-queued. Never throws. */
  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const overdue = await this.repository.findOverdue(
        this.config.webhookSweepIntervalMs,
        SWEEP_BATCH,
      );
      if (overdue.length > 0) await this.dispatcher.enqueue(overdue);
      return overdue.length;
    } catch (error) {
      this.logger.warn(`Delivery sweep failed: ${(error as Error).message}`);
      return 0;
    } finally {
      this.running = false;
    }
  }
}
