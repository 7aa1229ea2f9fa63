import { Injectable } from '@nestjs/common';
import { AuditLog, type AuditActor } from '../../audit';
import { AppConfig } from '../../config/app-config';
import { InvalidInputError, NotFoundError, StateConflictError } from '../../common/domain-error';
import {
  DeliveryTargets,
  FILTER_PREVIEW_EVENTS,
  previewFilter,
  WebhookEndpointAdmin,
  type FilterPreviewItem,
} from '../../webhooks';
import type { AttemptRecord, DeliveryState, FinishedAttempt } from './attempt-records';
import { DeliveryLogRepository } from './delivery-log.repository';
import { Deliveries } from '../deliveries';
import { AttemptPartitions } from './attempt-partitions.service';
import type { EntityManager } from 'typeorm';
import type { BegunAttempt } from './attempt-log.service';
import type { SendResult } from '../sending';
import { AttemptLog } from './attempt-log.service';
import { AttemptsRepository } from './attempts.repository';
import { AttemptRunner, type AttemptRun } from './attempt.runner';
import { TransformationTrials, type TrialOutcome } from './transformation-trials.service';
import {
  encodeLogCursor,
  parseDeliveryLogQuery,
  type DeliveryLogItem,
  type DeliveryLogPage,
  type DeliveryLogQuery,
} from './delivery-log';
import { GONE } from './retry-schedule';
import { PING, testMessage } from './test-messages.constants';
import {
  isLedgerDays,
  LEDGER_DEFAULT_DAYS,
  LEDGER_MAX_DAYS,
  type DeliveryLedger,
} from '../analytics';

/** The most attempts `delivery list` prints at once (docs/cli.md#commands). */
export const MAX_CLI_LIST_LIMIT = 1000;

/** The request of an attempt as it was sent (docs/dashboard.md#attempt-detail). */
export interface SentRequest {
  /** POST, or the method the endpoint's transformation chose (docs/webhooks.md#transformations). */
  method: 'POST' | 'PUT' | 'PATCH';
  /** The version of the endpoint's transformation that shaped it; null: none did. */
  transformation_version: number | null;
  /** The URL it went to; null for attempts recorded before requests were kept. */
  url: string | null;
  /**
   * The headers sent, in the order sent, each signature truncated to its first 12 characters
   * and `…`; null for attempts recorded before requests were kept.
   */
  headers: Record<string, string> | null;
  /** The exact body sent: the event's, or the ping's or test event's own. */
  body: string | null;
}

/**
 * One attempt with the request as sent and the start of the response (`response_excerpt`, at
 * most 1 KiB), for the dashboard's `GET /attempts/{attempt_id}` (docs/dashboard.md#attempt-detail).
 */
export interface AttemptDetail extends AttemptRecord {
  request: SentRequest;
  /**
   * The response's headers as kept (at most 50, 4,096 characters, credentials redacted); null
   * when no response came or for attempts recorded before they were stored.
   */
  response_headers: Record<string, string> | null;
  /**
   * Where the attempt's delivery stands now (status, attempts so far, when the next retry is
   * due while it is pending); null for pings and test events, which belong to no delivery.
   */
  delivery: DeliveryState | null;
}

/**
 * The operator's and the dashboard's delivery operations (docs/cli.md#commands,
 * docs/dashboard.md#routes): redeliveries, test messages (pings and example events) and the
 * delivery log. Each attempt, its delivery's new state and the endpoint's health counters are
 * recorded in one transaction. Scheduled attempts are the worker's ({@link ScheduledAttempts}).
 *
 * Ownership is the caller's: these methods take ids as given; the dashboard checks that the
 * endpoint (an attempt's `endpoint_id`) belongs to the user's account before calling or showing.
 */
@Injectable()
export class DeliveryService {
  constructor(
    private readonly repository: DeliveryLogRepository,
    private readonly deliveries: Deliveries,
    private readonly partitions: AttemptPartitions,
    private readonly attempts: AttemptLog,
    private readonly runner: AttemptRunner,
    private readonly endpoints: DeliveryTargets,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
    private readonly admin: WebhookEndpointAdmin,
    private readonly trials: TransformationTrials,
    private readonly attemptsRepository: AttemptsRepository,
  ) {}

  /**
   * Runs a transformation on an example or a past delivery of the endpoint without sending
   * anything ({@link TransformationTrials.run}, docs/dashboard.md#transformations).
   */
  runTransformation(...args: Parameters<TransformationTrials['run']>): Promise<TrialOutcome> {
    return this.trials.run(...args);
  }

  /**
   * Sends a delivery again now, whatever its state (CLI `delivery redeliver`, the dashboard's
   * `POST /deliveries/{delivery_id}/redeliver`); same `webhook-id` and body
   * (docs/webhooks.md#success-retries-and-health). A success marks the delivery succeeded; a
   * failure leaves its schedule as is, except 410 Gone: the endpoint is disabled and the
   * delivery, unless it had succeeded before, is marked failed
   * (docs/webhooks.md#disabled-endpoints). With an `actor`, recorded as `delivery.redeliver`
   * (`{endpoint_id, attempt_id, webhook_id, success, status_code}`) once the attempt is
   * logged: an HTTP request is no part of a transaction. Without one (the CLI's
   * `delivery redeliver`) it is not recorded (docs/cli.md#commands).
   * @returns the attempt, with its event's type like {@link listAttempts}.
   * @throws NotFoundError for an unknown delivery, or when its endpoint no longer exists.
   */
  async redeliver(deliveryId: number, actor?: AuditActor): Promise<AttemptRecord> {
    const work =
      deliveryId > Number.MAX_SAFE_INTEGER ? null : await this.deliveries.findWork(deliveryId);
    if (!work) throw new NotFoundError(`delivery ${deliveryId} does not exist`);
    const target = await this.endpoints.find(work.endpointId);
    if (!target) throw new NotFoundError(`the endpoint of delivery ${deliveryId} no longer exists`);
    const start = {
      endpointId: work.endpointId,
      deliveryId,
      messageId: work.eventId,
      eventType: work.eventType,
    };
    // Not a scheduled start (no attempt number): it is always begun, never null.
    const { id, deliveryCreatedAt, result } = begunOrCancelled(
      await this.runner.run(start, target, work.body, false, work.traceContext),
      `delivery ${deliveryId}`,
    );
    const record = this.finished(
      await this.attempts.finish({
        ...start,
        id,
        deliveryCreatedAt,
        result,
        eventCreatedAt: work.status === 'succeeded' ? null : work.eventCreatedAt,
        next: result.success
          ? { status: 'succeeded', nextAttemptAt: null }
          : result.statusCode === GONE && work.status !== 'succeeded'
            ? { status: 'failed', nextAttemptAt: null }
            : null,
      }),
    );
    const attempt = { ...record, event_type: work.eventType };
    await this.audit.recordChange(actor, {
      accountId: await this.admin.accountForEntry(actor, work.endpointId),
      action: 'delivery.redeliver',
      objectType: 'delivery',
      objectId: deliveryId,
      details: { endpoint_id: work.endpointId, ...attemptDetails(attempt) },
    });
    return attempt;
  }

  /**
   * Sends a signed test ping `{"type": "ping", "timestamp", "data": {"endpoint_id"}}` to an
   * endpoint (CLI `endpoint ping`): {@link sendTest} without an event type.
   * @throws NotFoundError for an unknown endpoint.
   */
  ping(endpointId: number): Promise<AttemptRecord> {
    return this.sendTest(endpointId);
  }

  /**
   * Sends one signed test message to an endpoint now (the dashboard's
   * `POST /endpoints/{endpoint_id}/test`, docs/webhooks.md#test-events): a ping when
   * `eventType` is absent or `ping` (`webhook-id` `ping_<uuid>`), else
   * `{"type": eventType, "timestamp", "data": <the type's example>}` with `webhook-id`
   * `test_<uuid>`. It is sent even to a disabled endpoint or one not subscribed to the type,
   * belongs to no delivery and is never retried, and counts in the endpoint's health like a
   * ping. The delivery log shows it with `event_type` null for a ping (filter: `ping`), else
   * the type. An answer of 410 Gone disables the endpoint, if enabled
   * (docs/webhooks.md#disabled-endpoints). With an `actor`, recorded as `endpoint.test`
   * (`{event_type, attempt_id, webhook_id, success, status_code}`) once the attempt is logged;
   * without one (the CLI's `endpoint ping`) it is not recorded.
   * @returns the finished attempt: status code, duration, error, response excerpt.
   * @throws InvalidInputError (field `event_type`) for an unknown type; NotFoundError for an
   *   unknown endpoint.
   */
  async sendTest(
    endpointId: number,
    eventType?: string,
    actor?: AuditActor,
  ): Promise<AttemptRecord> {
    const message = testMessage(endpointId, eventType);
    const target = await this.endpoints.find(endpointId);
    if (!target) throw new NotFoundError(`webhook endpoint ${endpointId} does not exist`);
    const start = {
      endpointId,
      deliveryId: null,
      messageId: message.id,
      eventType: message.eventType,
    };
    // Not a scheduled start: always begun, never null.
    const { id, deliveryCreatedAt, result } = begunOrCancelled(
      // A ping checks that the endpoint answers: never transformed
      // (docs/webhooks.md#transformations); an example event is, like a delivery.
      await this.runner.run(
        start,
        target,
        message.body,
        false,
        null,
        message.eventType === PING ? null : undefined,
      ),
      'the test message',
    );
    const attempt = this.finished(
      await this.attempts.finish({ ...start, id, deliveryCreatedAt, result, next: null }),
    );
    await this.audit.recordChange(actor, {
      accountId: await this.admin.accountForEntry(actor, endpointId),
      action: 'endpoint.test',
      objectType: 'endpoint',
      objectId: endpointId,
      details: { event_type: eventType ?? PING, ...attemptDetails(attempt) },
    });
    return attempt;
  }

  /**
   * The newest finished attempts of an endpoint, newest first (CLI `delivery list`,
   * docs/cli.md#commands): the first page of {@link deliveryLog} without filters, with each
   * attempt's `response_excerpt`.
   * @param limit 1 to {@link MAX_CLI_LIST_LIMIT}.
   * @throws NotFoundError for an unknown endpoint.
   */
  async listAttempts(endpointId: number, limit: number): Promise<AttemptRecord[]> {
    await this.requireEndpoint(endpointId);
    const rows = await this.repository.findAttempts(endpointId, {
      limit: Math.min(Math.max(Math.trunc(limit), 1), MAX_CLI_LIST_LIMIT),
    });
    return rows.map(({ position: _position, ...record }) => record);
  }

  /**
   * A page of an endpoint's delivery log (the dashboard's `GET /endpoints/{endpoint_id}/attempts`,
   * docs/dashboard.md#delivery-log): its finished attempts (scheduled, redeliveries, pings and
   * test events), newest first by (`attempted_at`, `id`), filtered by `outcome`, `event_type`
   * (`ping`: pings only) and `[from, to)`, at most `limit` (1–100, default 50) per page, paged
   * by the opaque `next_cursor`. Attempts still in flight are not shown until they finish.
   * @throws InvalidInputError naming the bad parameter (a malformed `cursor` included);
   *   NotFoundError for an unknown endpoint.
   */
  async deliveryLog(endpointId: number, query: DeliveryLogQuery = {}): Promise<DeliveryLogPage> {
    const filter = parseDeliveryLogQuery(query);
    await this.requireEndpoint(endpointId);
    const rows = await this.repository.findAttempts(endpointId, {
      ...filter,
      limit: filter.limit + 1,
    });
    const page = rows.slice(0, filter.limit);
    const items = page.map(
      ({ position: _position, response_excerpt: _excerpt, ...item }): DeliveryLogItem => item,
    );
    const last = page[page.length - 1];
    return {
      items,
      next_cursor: rows.length > filter.limit && last ? encodeLogCursor(last.position) : null,
    };
  }

  /**
   * What a payload filter would do (the dashboard's "Try it", docs/dashboard.md#payload-filter-preview),
   * sending nothing and writing nothing: checked as on save against `events`, then evaluated on
   * each type's example and on the campaign's {@link FILTER_PREVIEW_EVENTS} latest recorded
   * events of those types. The campaign is owned: the dashboard's guard checked its account.
   * @returns one item per example, then per event (newest first): match, no match, or the
   *   evaluation error (which counts as no match).
   * @throws InvalidInputError (field `filter` naming the line and column, or `events`).
   */
  async filterPreview(
    campaignId: number,
    filter: string,
    events: string[],
  ): Promise<FilterPreviewItem[]> {
    // Checked before any read: a refused filter costs no query.
    previewFilter(filter, events, []);
    const types = [...new Set(events.map((e) => e.trim()))];
    const recent = await this.deliveries.recentEvents(campaignId, types, FILTER_PREVIEW_EVENTS);
    return previewFilter(filter, events, recent);
  }

  /**
   * An endpoint's delivery ledger (the dashboard's `GET /endpoints/{endpoint_id}/ledger`,
   * docs/dashboard.md#delivery-ledger): for each of the last `days` UTC days, today first, the
   * deliveries created that day for the endpoint (`matched`) split by where they stand now:
   * `delivered` (succeeded), `failed` (for good), `pending`, `skipped` (skipped, or dropped),
   * and of the pending those waiting on the endpoint's throttle (`throttled`); with the
   * endpoint's limits and the sum of `throttled` (docs/webhooks.md#throttling).
   * A day without deliveries is all zeros; `matched = delivered + failed + pending + skipped`
   * on every day. `filtered` is not a delivery: the events the endpoint's payload filter left
   * out that day (docs/webhooks.md#payload-filters). It never reaches past the retention period (docs/operations.md#retention):
   * older deliveries are gone, so at most `DELIVERY_RETENTION_DAYS` days are returned.
   * @param days 1 to {@link LEDGER_MAX_DAYS}, default {@link LEDGER_DEFAULT_DAYS}.
   * @returns `{days: [{day: 'YYYY-MM-DD', matched, delivered, failed, pending, throttled,
   *   skipped, filtered}], throttle: {max_deliveries_per_second, max_in_flight, waiting}}`,
   *   `min(days, DELIVERY_RETENTION_DAYS)` days, newest first.
   * @throws InvalidInputError (field `days`) for another number of days; NotFoundError for an
   *   unknown endpoint.
   */
  async deliveryLedger(
    endpointId: number,
    days: number = LEDGER_DEFAULT_DAYS,
  ): Promise<DeliveryLedger> {
    if (!isLedgerDays(days)) {
      throw InvalidInputError.field('days', `must be an integer from 1 to ${LEDGER_MAX_DAYS}`);
    }
    const endpoint = await this.endpoints.find(endpointId);
    if (!endpoint) throw new NotFoundError(`webhook endpoint ${endpointId} does not exist`);
    const retained = Math.min(days, this.config.deliveryRetentionDays);
    const ledgerDays = await this.deliveries.countByDay(endpointId, retained);
    return {
      days: ledgerDays,
      throttle: {
        max_deliveries_per_second: endpoint.maxDeliveriesPerSecond,
        max_in_flight: endpoint.maxInFlight,
        waiting: ledgerDays.reduce((sum, day) => sum + day.throttled, 0),
      },
    };
  }

  /**
   * One finished attempt with the request exactly as sent and the start of the response (the
   * dashboard's `GET /attempts/{attempt_id}`, docs/dashboard.md#attempt-detail): URL, headers
   * (`webhook-signature` truncated: never a whole signature or a secret), body, status,
   * `response_excerpt` and `response_headers`. The caller checks that `endpoint_id` is the user's.
   * @throws NotFoundError for an unknown attempt, or one still in flight.
   */
  async attemptDetail(attemptId: number): Promise<AttemptDetail> {
    const row =
      Number.isSafeInteger(attemptId) && attemptId >= 1
        ? await this.repository.findAttemptRequest(attemptId)
        : null;
    if (!row) throw new NotFoundError(`attempt ${attemptId} does not exist`);
    const {
      request_url,
      request_headers,
      request_body,
      request_method,
      transformation_version,
      delivery,
      ...record
    } = row;
    return {
      ...record,
      request: {
        method: request_method,
        url: request_url,
        headers: request_headers,
        body: request_body,
        transformation_version,
      },
      delivery,
    };
  }

  private async requireEndpoint(endpointId: number): Promise<void> {
    if (!(await this.endpoints.find(endpointId))) {
      throw new NotFoundError(`webhook endpoint ${endpointId} does not exist`);
    }
  }

  private finished(record: AttemptRecord | null): AttemptRecord {
    if (!record)
      throw new Error(
        'the attempt was closed as of unknown outcome before its result was recorded',
      );
    return record;
  }

  // The attempt log's face for the other delivery modules: the worker's scheduled attempts and
  // sweeper, and the retention pass (docs/architecture.md#modules-and-tables).

  /**
   * Redacts the stored requests and answers of the attempts of `deliveries`, in the caller's
   * transaction (an erasure, docs/privacy.md#erasure).
   * @param deliveries each delivery's id and its attempts' `delivery_created_at` (text).
   * @returns how many attempts were redacted.
   */
  redactAttempts(
    manager: EntityManager,
    deliveries: ReadonlyArray<{ id: number; createdAt: string }>,
  ): Promise<number> {
    return deliveries.length === 0
      ? Promise.resolve(0)
      : this.attemptsRepository.redactOfDeliveries(manager, deliveries);
  }

  /**
   * Sends one attempt and records its start ({@link AttemptRunner.run}): the worker's
   * scheduled attempts go through here. The caller records the result with
   * {@link finishAttempt}.
   * @returns the begun attempt with its result; null for a `scheduled` start another job began.
   */
  runAttempt(...args: Parameters<AttemptRunner['run']>): Promise<AttemptRun> {
    return this.runner.run(...args);
  }

  /** Records a begun attempt's result and moves its delivery on ({@link AttemptLog.finish}). */
  finishAttempt(attempt: FinishedAttempt): Promise<AttemptRecord | null> {
    return this.attempts.finish(attempt);
  }

  /** Closes attempts abandoned by stopped processes ({@link AttemptLog.closeAbandoned}). */
  closeAbandoned(): Promise<number> {
    return this.attempts.closeAbandoned();
  }

  /**
   * Detaches and drops, on the retention pass's `session`, each attempts' partition whose range
   * ends on or before `cutoff` (docs/operations.md#retention); a detach a stopped process left
   * half-done is finished first.
   * @returns the names of the partitions dropped.
   */
  dropPartitionsBefore(session: EntityManager, cutoff: Date): Promise<string[]> {
    return this.partitions.dropBefore(session, cutoff);
  }

  /** Makes the attempts' partitions ahead of `now` ({@link AttemptPartitions.ensureAhead}). */
  ensurePartitionsAhead(now: number): Promise<string[]> {
    return this.partitions.ensureAhead(now);
  }
}

/** What an audit entry says of an attempt the operator asked for. */
function attemptDetails(attempt: AttemptRecord): Record<string, unknown> {
  return {
    attempt_id: attempt.id,
    webhook_id: attempt.webhook_id,
    success: attempt.success,
    status_code: attempt.status_code,
  };
}

/**
 * The attempt a redelivery or a test message began (never null: not a scheduled start).
 * @throws StateConflictError when the endpoint's transformation returned null: nothing was sent
 *   (docs/webhooks.md#transformations).
 */
function begunOrCancelled(run: AttemptRun, what: string): BegunAttempt & { result: SendResult } {
  if (run === null) throw new Error(`${what} was not begun`);
  if ('cancelled' in run) {
    throw new StateConflictError(
      `the endpoint's transformation (version ${run.version}) returned null for ${what}: nothing was sent`,
    );
  }
  return run;
}
