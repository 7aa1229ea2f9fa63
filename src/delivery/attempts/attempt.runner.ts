import { Injectable } from '@nestjs/common';
import { DeliveryTargets } from '../../webhooks';
import { AttemptLog, type BegunAttempt } from './attempt-log.service';
import type { AttemptStart } from './attempt-records';
import { GONE } from './retry-schedule';
import {
  loggedHeaders,
  redactSecretHeaders,
  withCustomHeaders,
  WebhookSender,
  type SendResult,
  type ShapedRequest,
} from '../sending';
import { StateConflictError } from '../../common/domain-error';
import { TransformationBusyError } from '../../transformations';
import type { CustomHeaderToSend, EndpointTransformation } from '../../webhooks';
import { traceAttempt, type TraceCarrier } from '../../tracing/trace-hooks';

/** What the runner needs of an endpoint: where, with which keys and headers, shaped how. */
export interface AttemptTarget {
  id: number;
  url: string;
  secrets: string[];
  headers?: CustomHeaderToSend[];
  transformation?: EndpointTransformation | null;
}

/**
 * The outcome of {@link AttemptRunner.run}: the begun attempt with its result (for a failed
 * transformation, nothing was sent and `result` carries the error), null for a scheduled start
 * another job began first, or `cancelled` when the endpoint's transformation returned null
 * (nothing recorded, nothing sent).
 */
export type AttemptRun =
  | (BegunAttempt & { result: SendResult; shaped: ShapedRequest | null })
  | null
  | { cancelled: true; version: number };

/** How long a redelivery or a test message waits for a busy transformation budget, in ms. */
const BUSY_WAIT_LIMIT_MS = 3_000;

/**
 * Makes one attempt: signs it, records it with its request (signatures truncated), then sends
 * exactly that request, so a request never leaves without its row in the delivery log
 * (docs/reliability.md) and the log shows what was sent (docs/dashboard.md#delivery-log). An
 * answer of 410 Gone disables the endpoint before the attempt is returned, whoever made it
 * (scheduled, redelivery, test message: docs/webhooks.md#disabled-endpoints). The caller
 * records the result with {@link AttemptLog.finish}.
 */
@Injectable()
export class AttemptRunner {
  constructor(
    private readonly attempts: AttemptLog,
    private readonly sender: WebhookSender,
    private readonly endpoints: DeliveryTargets,
  ) {}

  /**
   * @param start the attempt; its `webhook-timestamp` is the time it is recorded as started.
   * @param target where to send, the signing secrets to sign with and the endpoint's custom
   *   headers (docs/webhooks.md#custom-headers), logged with secret values redacted.
   * @param body the exact JSON text to send. Stored on the attempt only when it has no delivery
   *   (pings, test events): a delivery's body is its event's, stored once.
   * @param closeOrphans see {@link AttemptLog.begin}.
   * @param cause the trace context the delivery's event was recorded in: with tracing on, the
   *   attempt runs in a span linked to it (docs/operations.md#traces).
   * @param shaped what the endpoint's transformation made of the message, when the caller ran
   *   it already (the worker runs it before taking an attempt slot); undefined: the runner
   *   runs the target's transformation itself, if it has one (docs/webhooks.md#transformations).
   * @returns the attempt's id, how many abandoned attempts were closed first, and the result;
   *   null, nothing sent, for a `scheduled` start that another job began first
   *   ({@link AttemptLog.begin}); `cancelled` when the transformation returned null. After a
   *   410 the endpoint is already disabled ({@link DeliveryTargets.disableGone}). A failed
   *   transformation is recorded as an attempt whose error starts `transformation_error:`.
   * @throws StateConflictError when the runner ran the transformation itself and this
   *   process's transformation budget stayed busy for 3 s.
   */
  async run(
    start: Omit<AttemptStart, 'attemptedAt' | 'request'>,
    target: AttemptTarget,
    body: string,
    closeOrphans = false,
    cause: TraceCarrier | null = null,
    shaped?: ShapedRequest | null,
  ): Promise<AttemptRun> {
    const shape =
      shaped === undefined ? await this.shapeWaiting(target, start.eventType, body) : shaped;
    if (shape?.kind === 'cancelled') return { cancelled: true, version: shape.version };
    return traceAttempt(start, cause, () =>
      this.attempt(start, target, body, closeOrphans, shape ?? null),
    );
  }

  /** Runs the target's transformation, waiting up to {@link BUSY_WAIT_LIMIT_MS} while the budget is busy. */
  private async shapeWaiting(
    target: AttemptTarget,
    eventType: string,
    body: string,
  ): Promise<ShapedRequest | null> {
    if (!target.transformation) return null;
    const giveUpAt = Date.now() + BUSY_WAIT_LIMIT_MS;
    for (;;) {
      try {
        return await this.sender.shape(
          { id: target.id, url: target.url, headers: target.headers ?? [], transformation: null },
          eventType,
          body,
          target.transformation,
        );
      } catch (error) {
        if (!(error instanceof TransformationBusyError)) throw error;
        if (Date.now() + error.waitMs > giveUpAt) {
          throw new StateConflictError(
            'the transformations of this server are busy: try again in a few seconds',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, error.waitMs));
      }
    }
  }

  private async attempt(
    start: Omit<AttemptStart, 'attemptedAt' | 'request'>,
    target: AttemptTarget,
    body: string,
    closeOrphans: boolean,
    shaped: Exclude<ShapedRequest, { kind: 'cancelled' }> | null,
  ): Promise<(BegunAttempt & { result: SendResult; shaped: ShapedRequest | null }) | null> {
    const attemptedAt = new Date();
    const custom = target.headers ?? [];
    if (shaped?.kind === 'error') {
      // Nothing is sent: the attempt is recorded with the transformation's error.
      const begun = await this.attempts.begin(
        {
          ...start,
          attemptedAt,
          request: { method: 'POST', url: target.url, headers: {}, body: null },
          transformationVersion: shaped.version,
        },
        closeOrphans,
      );
      if (!begun) return null;
      const result: SendResult = {
        attemptedAt,
        durationMs: 0,
        statusCode: null,
        success: false,
        error: shaped.error,
        responseExcerpt: null,
      };
      return { ...begun, result, shaped };
    }
    const sent = shaped ?? null;
    const sentBody = sent ? sent.body : body;
    // A transformation's headers first; the endpoint's secret headers after them, so the code
    // can neither read nor replace a secret value.
    const added = sent ? [...sent.headers, ...custom.filter((h) => h.secret)] : custom;
    const signed = withCustomHeaders(
      this.sender.sign(
        sent ? sent.url : target.url,
        target.secrets,
        { id: start.messageId, body: sentBody },
        attemptedAt,
        sent ? { method: sent.method, contentType: sent.contentType } : undefined,
      ),
      added,
    );
    const request = {
      method: signed.method,
      url: signed.url,
      headers: redactSecretHeaders(loggedHeaders(signed.headers), added),
      // A delivery's body is its event's, stored once; unless a transformation changed it.
      body: start.deliveryId === null || sent ? sentBody : null,
    };
    const begun = await this.attempts.begin(
      { ...start, attemptedAt, request, transformationVersion: sent?.version ?? null },
      closeOrphans,
    );
    if (!begun) return null;
    const result = await this.sender.sendSigned(signed);
    if (result.statusCode === GONE) {
      // Never throws: a failure to disable is logged, and the next 410 tries again.
      await this.endpoints.disableGone(start.endpointId, {
        attemptId: begun.id,
        webhookId: start.messageId,
        deliveryId: start.deliveryId,
      });
    }
    return { ...begun, result, shaped: sent };
  }
}
