import { Injectable } from '@nestjs/common';
import { StateConflictError, NotFoundError } from '../../common/domain-error';
import { TransformationBusyError, type TransformationFailure } from '../../transformations';
import { DeliveryTargets, type EndpointTransformation } from '../../webhooks';
import { Deliveries } from '../deliveries';
import {
  loggedHeaders,
  redactSecretHeaders,
  withCustomHeaders,
  WebhookSender,
  type RequestMethod,
} from '../sending';
import { testMessage } from './test-messages.constants';

/** What a trial run was given: an example of a type, or a past delivery's event. */
export interface TrialSource {
  kind: 'example' | 'delivery';
  event_type: string;
  /** The delivery run on; null for an example. */
  delivery_id: number | null;
  /** The `webhook-id` the request would carry. */
  webhook_id: string;
}

/**
 * A transformation's trial run (docs/dashboard.md#transformations): exactly the request that
 * would be sent (headers as the delivery log shows them: signatures truncated, secret header
 * values redacted), or the reason nothing would be.
 */
export type TrialOutcome = {
  source: TrialSource;
  /** The version run; 0 for code not saved. */
  version: number;
  /** ms the run took, queueing included. */
  duration_ms: number;
} & (
  | {
      outcome: 'request';
      request: {
        method: RequestMethod;
        url: string;
        headers: Record<string, string>;
        body: string;
      };
      error: null;
    }
  | { outcome: 'cancelled'; request: null; error: null }
  | { outcome: 'error'; request: null; error: TransformationFailure }
);

/**
 * Runs a transformation on an example or on a past delivery without sending anything
 * (docs/dashboard.md#transformations): the dashboard's "Run on the example" and "Run on a past
 * delivery". Nothing is written.
 */
@Injectable()
export class TransformationTrials {
  constructor(
    private readonly endpoints: DeliveryTargets,
    private readonly deliveries: Deliveries,
    private readonly sender: WebhookSender,
  ) {}

  /**
   * @param endpointId the endpoint (the caller checked its owner).
   * @param code the code to run; undefined runs the version in force.
   * @param on an event type's example, or a past delivery of this endpoint.
   * @throws NotFoundError for an unknown endpoint, a delivery of another endpoint or none;
   *   InvalidInputError (field `event_type`) for an unknown type; StateConflictError when no
   *   code is given and none is in force, or when the transformations of this server are busy.
   */
  async run(
    endpointId: number,
    code: string | undefined,
    on: { eventType?: string; deliveryId?: number },
  ): Promise<TrialOutcome> {
    const target = await this.endpoints.find(endpointId);
    if (!target) throw new NotFoundError(`webhook endpoint ${endpointId} does not exist`);
    const transformation: EndpointTransformation | null =
      code === undefined ? target.transformation : { version: 0, code };
    if (transformation === null) {
      throw new StateConflictError(
        `webhook endpoint ${endpointId} has no transformation: give the code to run`,
      );
    }
    const message = await this.messageOf(endpointId, on);
    const started = performance.now();
    let shaped;
    try {
      shaped = await this.sender.shape(target, message.eventType, message.body, transformation);
    } catch (error) {
      if (error instanceof TransformationBusyError) {
        throw new StateConflictError(
          'the transformations of this server are busy: try again in a few seconds',
        );
      }
      throw error;
    }
    const base = {
      source: message.source,
      version: transformation.version,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    };
    if (shaped === null || shaped.kind === 'cancelled') {
      return { ...base, outcome: 'cancelled', request: null, error: null };
    }
    if (shaped.kind === 'error') {
      return { ...base, outcome: 'error', request: null, error: shaped.failure };
    }
    const added = [...shaped.headers, ...target.headers.filter((h) => h.secret)];
    const signed = withCustomHeaders(
      this.sender.sign(
        shaped.url,
        target.secrets,
        { id: message.source.webhook_id, body: shaped.body },
        new Date(),
        { method: shaped.method, contentType: shaped.contentType },
      ),
      added,
    );
    return {
      ...base,
      outcome: 'request',
      request: {
        method: signed.method,
        url: signed.url,
        headers: redactSecretHeaders(loggedHeaders(signed.headers), added),
        body: signed.body,
      },
      error: null,
    };
  }

  private async messageOf(
    endpointId: number,
    on: { eventType?: string; deliveryId?: number },
  ): Promise<{ eventType: string; body: string; source: TrialSource }> {
    if (on.deliveryId !== undefined) {
      const work =
        on.deliveryId > Number.MAX_SAFE_INTEGER
          ? null
          : await this.deliveries.findWork(on.deliveryId);
      if (!work || work.endpointId !== endpointId) {
        throw new NotFoundError(`webhook endpoint ${endpointId} has no delivery ${on.deliveryId}`);
      }
      return {
        eventType: work.eventType,
        body: work.body,
        source: {
          kind: 'delivery',
          event_type: work.eventType,
          delivery_id: work.id,
          webhook_id: work.eventId,
        },
      };
    }
    const example = testMessage(endpointId, on.eventType ?? 'lead.created');
    return {
      eventType: example.eventType,
      body: example.body,
      source: {
        kind: 'example',
        event_type: example.eventType,
        delivery_id: null,
        webhook_id: example.id,
      },
    };
  }
}
