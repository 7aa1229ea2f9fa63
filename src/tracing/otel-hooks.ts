import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import { suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BullMQOtel, BullMQOTelSpan } from 'bullmq-otel';
import type {
  AttemptSpanResult,
  AttemptSpanStart,
  TraceCarrier,
  TracingHooks,
} from './trace-hooks';

/** The name of every webhook attempt's span (docs/operations.md#spans). */
export const ATTEMPT_SPAN = 'webhook attempt';

/** Stored contexts are W3C trace context whatever `OTEL_PROPAGATORS` says (docs/operations.md#traces). */
const w3c = new W3CTraceContextPropagator();

/** BullMQ's span kinds (its own enum, numbered as OpenTelemetry's). */
const PRODUCER = 3;
const CONSUMER = 4;

/** A BullMQ span not recorded, whose work (its Redis commands) is not traced either. */
class UntracedBullMqSpan extends BullMQOTelSpan {
  constructor() {
    super(trace.wrapSpanContext(INVALID_SPAN_CONTEXT));
  }

  override setSpanOnContext(ctx: Context): Context {
    return suppressTracing(ctx);
  }
}

/**
 * BullMQ's OpenTelemetry telemetry (`bullmq-otel`), except that the spans BullMQ starts on
 * its own with no trace around them (a worker waiting for a job, the stalled-job check every
 * few seconds, closing) are not recorded, nor the Redis commands under them: only adding jobs
 * and processing them make traces.
 */
export function quietBullMqTelemetry(): BullMQOtel {
  const telemetry = new BullMQOtel({ tracerName: 'bullmq' });
  const tracer = telemetry.tracer;
  const startSpan = tracer.startSpan.bind(tracer);
  tracer.startSpan = (name: string, options?: SpanOptions, parent?: Context) => {
    const kind = options?.kind as number | undefined;
    if (!trace.getSpan(parent ?? context.active()) && kind !== PRODUCER && kind !== CONSUMER) {
      return new UntracedBullMqSpan();
    }
    return startSpan(name, options, parent);
  };
  return telemetry;
}

/** The context a stored carrier stands for; null when it holds no valid span context. */
export function contextOfCarrier(carrier: TraceCarrier | null): Context | null {
  if (!carrier?.traceparent) return null;
  const extracted = w3c.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  const spanContext = trace.getSpanContext(extracted);
  return spanContext && isSpanContextValid(spanContext) ? extracted : null;
}

/** The attributes a webhook attempt's span starts with (docs/operations.md#spans). */
function startAttributes(start: AttemptSpanStart): Attributes {
  const attributes: Attributes = {
    'webhook.id': start.messageId,
    'webhook.endpoint_id': start.endpointId,
    'webhook.event_type': start.eventType,
  };
  if (start.deliveryId !== null) attributes['webhook.delivery_id'] = start.deliveryId;
  if (start.scheduled) attributes['webhook.attempt_number'] = start.scheduled.attemptCount + 1;
  return attributes;
}

/** Records an attempt's outcome on its span. */
function recordOutcome(span: Span, attempt: AttemptSpanResult | null): void {
  if (!attempt) {
    // Another job began the same scheduled attempt first: nothing was sent.
    span.setAttribute('webhook.outcome', 'not_sent');
    return;
  }
  const { result } = attempt;
  span.setAttributes({
    'webhook.attempt_id': attempt.id,
    'webhook.duration_ms': result.durationMs,
    'webhook.outcome': result.success ? 'succeeded' : 'failed',
  });
  if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
  if (!result.success) {
    span.setAttribute(
      'error.type',
      result.statusCode === null ? 'no_response' : String(result.statusCode),
    );
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

/**
 * The tracing hooks with the OpenTelemetry API (installed by src/tracing/otel-sdk.ts once the
 * SDK runs): see {@link TracingHooks} and docs/operations.md#traces.
 */
export class OtelTracingHooks implements TracingHooks {
  private readonly tracer: Tracer = trace.getTracer('campaign-api');

  constructor(private readonly stop: () => Promise<void> = () => Promise.resolve()) {}

  captureContext(): TraceCarrier | null {
    const active = context.active();
    const spanContext = trace.getSpanContext(active);
    if (!spanContext || !isSpanContextValid(spanContext)) return null;
    const carrier: Record<string, string> = {};
    w3c.inject(active, carrier, defaultTextMapSetter);
    if (!carrier.traceparent) return null;
    return carrier.tracestate
      ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
      : { traceparent: carrier.traceparent };
  }

  /**
   * The attempt's span is a child of the span that runs it (the BullMQ job's `process` span,
   * a dashboard request, a CLI command), or of the stored context when nothing runs around
   * it, and always carries a link to the stored context.
   */
  traceAttempt<T extends AttemptSpanResult | null>(
    start: AttemptSpanStart,
    cause: TraceCarrier | null,
    run: () => Promise<T>,
  ): Promise<T> {
    const active = context.active();
    const causeContext = contextOfCarrier(cause);
    const links: Link[] = causeContext
      ? [{ context: trace.getSpanContext(causeContext)!, attributes: { 'webhook.link': 'cause' } }]
      : [];
    const parent = trace.getSpan(active) ? active : (causeContext ?? active);
    return this.tracer.startActiveSpan(
      ATTEMPT_SPAN,
      { kind: SpanKind.CLIENT, attributes: startAttributes(start), links },
      parent,
      async (span) => {
        try {
          const attempt = await run();
          recordOutcome(span, attempt);
          return attempt;
        } catch (error) {
          span.setAttribute('error.type', (error as Error)?.name ?? 'Error');
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  bind<F extends (...args: never[]) => unknown>(fn: F): F {
    return context.bind(context.active(), fn);
  }

  inRootSpan<T>(name: string, run: () => Promise<T>): Promise<T> {
    return this.tracer.startActiveSpan(name, { root: true }, async (span) => {
      try {
        return await run();
      } catch (error) {
        span.setAttribute('error.type', (error as Error)?.name ?? 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  queueOptions(): Record<string, unknown> {
    return { telemetry: quietBullMqTelemetry() };
  }

  shutdown(): Promise<void> {
    return this.stop();
  }
}
