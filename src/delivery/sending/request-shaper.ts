import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  checkTransformedTarget,
  transformationInput,
  type CustomHeaderToSend,
  type DeliveryTarget,
  type EndpointTransformation,
} from '../../webhooks';
import {
  TransformationSandbox,
  type TransformationFailure,
  type TransformationOutcome,
} from '../../transformations';
import type { RequestMethod } from './request-method';

/** The prefix of an attempt's error when its transformation failed (docs/webhooks.md#transformations). */
export const TRANSFORMATION_ERROR = 'transformation_error';

const MAX_ERROR_LENGTH = 500;

/**
 * What an endpoint's transformation made of one message (docs/webhooks.md#transformations),
 * with the version that made it:
 * - `send`: the request to sign and send. `headers` are the ones the code returned, checked by
 *   the custom-header rules; the endpoint's secret custom headers are added after them.
 * - `cancelled`: the code returned null; nothing is sent.
 * - `error`: it threw, ran out of time or memory, or returned a wrong shape; nothing is sent.
 *   `error` is the attempt's error text (`transformation_error: … (line L, column C)`).
 */
export type ShapedRequest =
  | {
      kind: 'send';
      version: number;
      method: RequestMethod;
      url: string;
      headers: CustomHeaderToSend[];
      contentType: string;
      body: string;
    }
  | { kind: 'cancelled'; version: number }
  | { kind: 'error'; version: number; error: string; failure: TransformationFailure };

/**
 * The attempt error of a failed transformation: `transformation_error: <message> (line L,
 * column C)`, at most 500 characters.
 */
export function transformationErrorText(failure: TransformationFailure): string {
  const at =
    failure.line === null
      ? ''
      : ` (line ${failure.line}${failure.column === null ? '' : `, column ${failure.column}`})`;
  return `${TRANSFORMATION_ERROR}: ${failure.message}${at}`.slice(0, MAX_ERROR_LENGTH);
}

/**
 * The sandbox's key for an endpoint's code: its saved version, or for code not saved (version
 * 0, the dashboard's "Run on…") a hash of it, so a draft never runs in a saved version's runtime.
 */
function runtimeKey(endpointId: number, transformation: EndpointTransformation): string {
  if (transformation.version > 0) return `${endpointId}:v${transformation.version}`;
  const hash = createHash('sha256').update(transformation.code).digest('base64url');
  return `${endpointId}:draft:${hash}`;
}

/**
 * Runs endpoints' transformations on their messages (docs/webhooks.md#transformations) in the
 * sandbox ({@link TransformationSandbox}) and holds the result to the endpoint rules
 * ({@link checkTransformedTarget}). Sends nothing.
 */
@Injectable()
export class RequestShaper {
  constructor(private readonly sandbox: TransformationSandbox) {}

  /**
   * @param target the endpoint (its transformation, URL and custom headers).
   * @param transformation the code to run: the target's in force by default, or another (the
   *   dashboard's "Run on…" of code not saved yet: version 0).
   * @returns the shaped request; null when there is no transformation to run.
   * @throws TransformationBusyError when this process's transformation budget is used up: the
   *   caller puts the message back for `waitMs`.
   */
  async shape(
    target: Pick<DeliveryTarget, 'id' | 'url' | 'headers' | 'transformation'>,
    eventType: string,
    body: string,
    transformation: EndpointTransformation | null = target.transformation,
  ): Promise<ShapedRequest | null> {
    if (transformation === null) return null;
    const outcome = await this.sandbox.run(
      { key: runtimeKey(target.id, transformation), code: transformation.code },
      transformationInput(target, eventType, body),
    );
    return shapedOf(outcome, transformation.version);
  }

  /**
   * {@link shape} for several messages to one endpoint (a batch's deliveries), in as few
   * sandbox tasks as fit (`TransformationSandbox.runMany`).
   * @returns one shaped request per message, in order; null when there is no transformation.
   * @throws TransformationBusyError as {@link shape}, for the whole batch.
   */
  async shapeMany(
    target: Pick<DeliveryTarget, 'id' | 'url' | 'headers' | 'transformation'>,
    messages: ReadonlyArray<{ eventType: string; body: string }>,
  ): Promise<ShapedRequest[] | null> {
    const transformation = target.transformation;
    if (transformation === null) return null;
    const outcomes = await this.sandbox.runMany(
      { key: runtimeKey(target.id, transformation), code: transformation.code },
      messages.map((m) => transformationInput(target, m.eventType, m.body)),
    );
    return outcomes.map((outcome) => shapedOf(outcome, transformation.version));
  }
}

/** A sandbox outcome held to the endpoint rules, as a {@link ShapedRequest} of `version`. */
function shapedOf(outcome: TransformationOutcome, version: number): ShapedRequest {
  if (outcome.kind === 'cancelled') return { kind: 'cancelled', version };
  if (outcome.kind === 'error') {
    return {
      kind: 'error',
      version,
      error: transformationErrorText(outcome.error),
      failure: outcome.error,
    };
  }
  const checked = checkTransformedTarget({ url: outcome.url, headers: outcome.headers });
  if ('problem' in checked) {
    const failure: TransformationFailure = {
      kind: 'shape',
      message: checked.problem,
      line: null,
      column: null,
    };
    return { kind: 'error', version, error: transformationErrorText(failure), failure };
  }
  return {
    kind: 'send',
    version,
    method: outcome.method,
    url: checked.url,
    headers: checked.headers,
    contentType: checked.contentType ?? outcome.contentType,
    body: outcome.body,
  };
}
