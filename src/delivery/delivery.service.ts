import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../common/domain-error';
import { DeliveryTargets } from '../webhooks/delivery-targets';
import { DeliveryRepository, type AttemptRecord } from './delivery.repository';
import { AttemptLog } from './attempt-log';
import { AttemptRunner } from './attempt-runner';

/**
 * The operator's delivery operations (docs/cli.md#commands, and the dashboard's): redeliveries,
 * test pings and the delivery log. Each attempt, its delivery's new state and the endpoint's
 * health counters are recorded in one transaction. Scheduled attempts are the worker's
 * ({@link ScheduledAttempts}).
 */
@Injectable()
export class DeliveryService {
  constructor(
    private readonly repository: DeliveryRepository,
    private readonly attempts: AttemptLog,
    private readonly runner: AttemptRunner,
    private readonly endpoints: DeliveryTargets,
  ) {}

  /**
   * Sends a delivery again now, whatever its state (CLI `delivery redeliver`); same
   * `webhook-id`. A success marks the delivery succeeded; a failure leaves its schedule as is.
   * @returns the attempt, with its event's type like {@link listAttempts}.
   * @throws NotFoundError for an unknown delivery, or when its endpoint no longer exists.
   */
  async redeliver(deliveryId: number): Promise<AttemptRecord> {
    const work =
      deliveryId > Number.MAX_SAFE_INTEGER ? null : await this.repository.findWork(deliveryId);
    if (!work) throw new NotFoundError(`delivery ${deliveryId} does not exist`);
    const target = await this.endpoints.find(work.endpointId);
    if (!target) throw new NotFoundError(`the endpoint of delivery ${deliveryId} no longer exists`);
    const start = { endpointId: work.endpointId, deliveryId, messageId: work.eventId };
    const { id, result } = await this.runner.run(start, target, work.body);
    const record = this.finished(
      await this.attempts.finish({
        ...start,
        id,
        result,
        next: result.success ? { status: 'succeeded', nextAttemptAt: null } : null,
      }),
    );
    return { ...record, event_type: work.eventType };
  }

  /**
   * Sends a signed test message `{"type": "ping", "timestamp", "data": {"endpoint_id"}}` to an
   * endpoint (CLI `endpoint ping`). It counts in the endpoint's health like any attempt.
   * @throws NotFoundError for an unknown endpoint.
   */
  async ping(endpointId: number): Promise<AttemptRecord> {
    const target = await this.endpoints.find(endpointId);
    if (!target) throw new NotFoundError(`webhook endpoint ${endpointId} does not exist`);
    const messageId = `ping_${randomUUID()}`;
    const body = JSON.stringify({
      type: 'ping',
      timestamp: new Date().toISOString(),
      data: { endpoint_id: endpointId },
    });
    const start = { endpointId, deliveryId: null, messageId };
    const { id, result } = await this.runner.run(start, target, body);
    return this.finished(await this.attempts.finish({ ...start, id, result, next: null }));
  }

  /**
   * The newest attempts of an endpoint, newest first (CLI `delivery list`).
   * @param limit at most this many.
   * @throws NotFoundError for an unknown endpoint.
   */
  async listAttempts(endpointId: number, limit: number): Promise<AttemptRecord[]> {
    if (!(await this.endpoints.find(endpointId))) {
      throw new NotFoundError(`webhook endpoint ${endpointId} does not exist`);
    }
    return this.repository.listAttempts(endpointId, limit);
  }

  private finished(record: AttemptRecord | null): AttemptRecord {
    if (!record)
      throw new Error(
        'the attempt was closed as of unknown outcome before its result was recorded',
      );
    return record;
  }
}
