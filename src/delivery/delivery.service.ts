import { Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { InvalidInputError } from '../common/invalid-input.error';
import { MAX_INT4 } from '../common/ids';
import { WebhookEndpointsService } from '../webhooks/webhook-endpoints.service';
import { DeliveryRetryError } from './delivery-queue';
import { DeliveryRepository, type AttemptRecord, type AttemptStart } from './delivery.repository';
import { AttemptLog, type BegunAttempt } from './attempt-log';
import { nextStep } from './retry-schedule';
import { WebhookSender, type SendResult } from './webhook-sender';

/**
 * What became of a queued delivery job: `skipped` (no longer pending), `dropped` (its endpoint
 * was disabled or deleted), `missing` (no such delivery in this deployment's database).
 */
export type AttemptOutcome = 'succeeded' | 'skipped' | 'dropped' | 'missing';

/**
 * Delivery attempts (docs/webhooks.md): the worker's scheduled attempts, the operator's
 * redeliveries and test pings. Each attempt, its delivery's new state and the endpoint's
 * health counters are recorded in one transaction.
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);

  constructor(
    private readonly repository: DeliveryRepository,
    private readonly attempts: AttemptLog,
    private readonly endpoints: WebhookEndpointsService,
    private readonly sender: WebhookSender,
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
  async attemptScheduled(
    deliveryId: number,
    endpointId?: number,
    resumed = false,
  ): Promise<AttemptOutcome> {
    // With the endpoint id in the job, the delivery and its endpoint are read at once.
    const [work, knownTarget] = await Promise.all([
      this.repository.findWork(deliveryId),
      endpointId === undefined ? undefined : this.endpoints.findTarget(endpointId),
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
        : await this.endpoints.findTarget(work.endpointId);
    if (!target || !target.isEnabled) {
      await this.repository.markDropped(deliveryId);
      return 'dropped';
    }
    const start = { endpointId: work.endpointId, deliveryId, messageId: work.eventId };
    const {
      id: attemptId,
      closedBefore,
      result,
    } = await this.attempt(start, target, work.body, resumed);
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

  /**
   * Sends a delivery again now, whatever its state (CLI `delivery redeliver`); same
   * `webhook-id`. A success marks the delivery succeeded; a failure leaves its schedule as is.
   * @throws InvalidInputError for an unknown delivery, or when its endpoint no longer exists.
   */
  async redeliver(deliveryId: number): Promise<AttemptRecord> {
    const work =
      deliveryId > Number.MAX_SAFE_INTEGER ? null : await this.repository.findWork(deliveryId);
    if (!work) throw new InvalidInputError(`delivery ${deliveryId} does not exist`);
    const target = await this.endpoints.findTarget(work.endpointId);
    if (!target)
      throw new InvalidInputError(`the endpoint of delivery ${deliveryId} no longer exists`);
    const start = { endpointId: work.endpointId, deliveryId, messageId: work.eventId };
    const { id, result } = await this.attempt(start, target, work.body);
    return this.finished(
      await this.attempts.finish({
        ...start,
        id,
        result,
        next: result.success ? { status: 'succeeded', nextAttemptAt: null } : null,
      }),
    );
  }

  /**
   * Sends a signed test message `{"type": "ping", "timestamp", "data": {"endpoint_id"}}` to an
   * endpoint (CLI `endpoint ping`). It counts in the endpoint's health like any attempt.
   * @throws InvalidInputError for an unknown endpoint.
   */
  async ping(endpointId: number): Promise<AttemptRecord> {
    const target = endpointId > MAX_INT4 ? null : await this.endpoints.findTarget(endpointId);
    if (!target) throw new InvalidInputError(`webhook endpoint ${endpointId} does not exist`);
    const messageId = `ping_${randomUUID()}`;
    const body = JSON.stringify({
      type: 'ping',
      timestamp: new Date().toISOString(),
      data: { endpoint_id: endpointId },
    });
    const start = { endpointId, deliveryId: null, messageId };
    const { id, result } = await this.attempt(start, target, body);
    return this.finished(await this.attempts.finish({ ...start, id, result, next: null }));
  }

  /** The newest attempts of an endpoint (CLI `delivery list`). */
  async listAttempts(endpointId: number, limit: number): Promise<AttemptRecord[]> {
    return endpointId > MAX_INT4 ? [] : this.repository.listAttempts(endpointId, limit);
  }

  /**
   * Records the attempt, then sends it: a send is never made without its row in the log.
   * @param closeOrphans see {@link AttemptLog.begin}.
   */
  private async attempt(
    start: Omit<AttemptStart, 'attemptedAt'>,
    target: { url: string; secrets: string[] },
    body: string,
    closeOrphans = false,
  ): Promise<BegunAttempt & { result: SendResult }> {
    const begun = await this.attempts.begin({ ...start, attemptedAt: new Date() }, closeOrphans);
    const result = await this.sender.send(target.url, target.secrets, {
      id: start.messageId,
      body,
    });
    return { ...begun, result };
  }

  private finished(record: AttemptRecord | null): AttemptRecord {
    if (!record)
      throw new Error(
        'the attempt was closed as of unknown outcome before its result was recorded',
      );
    return record;
  }
}
