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
} from '../sending';
import type { CustomHeaderToSend } from '../../webhooks';
import { traceAttempt, type TraceCarrier } from '../../tracing/trace-hooks';

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
   * @returns the attempt's id, how many abandoned attempts were closed first, and the result;
   *   null, nothing sent, for a `scheduled` start that another job began first
   *   ({@link AttemptLog.begin}). After a 410 the endpoint is already disabled
   *   ({@link DeliveryTargets.disableGone}).
   */
  run(
    start: Omit<AttemptStart, 'attemptedAt' | 'request'>,
    target: { url: string; secrets: string[]; headers?: CustomHeaderToSend[] },
    body: string,
    closeOrphans = false,
    cause: TraceCarrier | null = null,
  ): Promise<(BegunAttempt & { result: SendResult }) | null> {
    return traceAttempt(start, cause, () => this.attempt(start, target, body, closeOrphans));
  }

  private async attempt(
    start: Omit<AttemptStart, 'attemptedAt' | 'request'>,
    target: { url: string; secrets: string[]; headers?: CustomHeaderToSend[] },
    body: string,
    closeOrphans: boolean,
  ): Promise<(BegunAttempt & { result: SendResult }) | null> {
    const attemptedAt = new Date();
    const custom = target.headers ?? [];
    const signed = withCustomHeaders(
      this.sender.sign(target.url, target.secrets, { id: start.messageId, body }, attemptedAt),
      custom,
    );
    const request = {
      url: signed.url,
      headers: redactSecretHeaders(loggedHeaders(signed.headers), custom),
      body: start.deliveryId === null ? body : null,
    };
    const begun = await this.attempts.begin({ ...start, attemptedAt, request }, closeOrphans);
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
    return { ...begun, result };
  }
}
