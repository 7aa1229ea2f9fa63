import { Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { DeliveryTargets } from '../webhooks/delivery-targets';
import { DeliveryRetryError } from './delivery-queue';
import { DeliveryRepository } from './delivery.repository';
import { AttemptLog } from './attempt-log';
import { AttemptRunner } from './attempt-runner';
import { nextStep } from './retry-schedule';

/**
 * What became of a queued delivery job: `skipped` (no longer pending), `dropped` (its endpoint
 * was disabled or deleted), `missing` (no such delivery in this deployment's database).
 */
export type AttemptOutcome = 'succeeded' | 'skipped' | 'dropped' | 'missing';

/**
 * The worker's scheduled attempts (docs/webhooks.md#success-retries-and-health): one per queue job, each
 * recorded with its delivery's next state by the retry schedule. Only the worker loads this.
 */
@Injectable()
export class ScheduledAttempts {
  private readonly logger = new Logger(ScheduledAttempts.name);

  constructor(
    private readonly repository: DeliveryRepository,
    private readonly attempts: AttemptLog,
    private readonly runner: AttemptRunner,
    private readonly endpoints: DeliveryTargets,
    private readonly config: AppConfig,
  ) {}

  /**
   * Runs the next scheduled attempt of a delivery (the queue's job).
   * @param resumed the job ran before (a retry, or taken over from a stopped worker): close
   *   the delivery's attempts that a dead process left unfinished first.
   * @returns `skipped` when the delivery is no longer pending (already done, or queued twice),
   *   `dropped` when its endpoint was disabled or deleted meanwhile (nothing is sent),
   *   `missing` when this deployment's database has no such delivery (logged).
   * @throws DeliveryRetryError after a failed attempt with retries left (BullMQ retries after its delay);
   *   UnrecoverableError after the last one (the delivery is marked failed).
   */
  async run(deliveryId: number, endpointId?: number, resumed = false): Promise<AttemptOutcome> {
    // With the endpoint id in the job, the delivery and its endpoint are read at once.
    const [work, knownTarget] = await Promise.all([
      this.repository.findWork(deliveryId),
      endpointId === undefined ? undefined : this.endpoints.find(endpointId),
    ]);
    if (!work) {
      this.logger.warn(
        `Delivery ${deliveryId} does not exist in this deployment's database; job dropped`,
      );
      return 'missing';
    }
    if (work.status !== 'pending') return 'skipped';
    const target =
      knownTarget !== undefined && work.endpointId === endpointId
        ? knownTarget
        : await this.endpoints.find(work.endpointId);
    if (!target || !target.isEnabled) {
      await this.repository.markDropped(deliveryId);
      return 'dropped';
    }
    const start = {
      endpointId: work.endpointId,
      deliveryId,
      messageId: work.eventId,
      eventType: work.eventType,
    };
    const {
      id: attemptId,
      closedBefore,
      result,
    } = await this.runner.run(start, target, work.body, resumed);
    // Attempts closed as abandoned just now count too: the schedule goes on after them.
    const attemptNumber = work.attemptCount + closedBefore + 1;
    const next = nextStep(attemptNumber, result.success, this.config.webhookRetryScheduleMs);
    await this.attempts.finish({
      ...start,
      id: attemptId,
      result,
      next: {
        status: next.status,
        nextAttemptAt: next.status === 'pending' ? new Date(Date.now() + next.delayMs) : null,
      },
    });
    if (result.success) return 'succeeded';
    const reason = `delivery ${deliveryId} attempt ${attemptNumber} failed: ${result.error}`;
    if (next.status === 'failed') throw new UnrecoverableError(`${reason}; no retries left`);
    throw new DeliveryRetryError(reason, next.delayMs);
  }
}
