/**
 * What the rest of the service knows of tracing (docs/operations.md#traces): a few functions
 * that do nothing, at the cost of one null check, until `src/tracing.ts` has started the
 * OpenTelemetry SDK and installed its implementation with {@link installTracingHooks}. This file
 * imports nothing, so a process with tracing off never loads any OpenTelemetry code.
 */

/**
 * A W3C trace context (https://www.w3.org/TR/trace-context/) as stored with an outbox event in
 * `webhook_event.trace_context`: the `traceparent` of the span that recorded the event (an
 * upload's HTTP request, a dashboard action, a CLI command) and its `tracestate`, if any.
 */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** What a webhook attempt's span says of the attempt before it is made. */
export interface AttemptSpanStart {
  /** The `webhook-id` sent: the event id, `ping_<uuid>` or `test_<uuid>`. */
  messageId: string;
  endpointId: number;
  /** Null for pings and test events. */
  deliveryId: number | null;
  eventType: string;
  /** Set for a scheduled attempt: its delivery's attempt count as the worker read it. */
  scheduled?: { attemptCount: number };
}

/** What a webhook attempt's span records of the attempt once made (null: not made). */
export interface AttemptSpanResult {
  id: number;
  result: { statusCode: number | null; success: boolean; durationMs: number };
}

/** The implementation {@link installTracingHooks} installs (src/tracing/otel-hooks.ts). */
export interface TracingHooks {
  captureContext(): TraceCarrier | null;
  traceAttempt<T extends AttemptSpanResult | null>(
    start: AttemptSpanStart,
    cause: TraceCarrier | null,
    run: () => Promise<T>,
  ): Promise<T>;
  bind<F extends (...args: never[]) => unknown>(fn: F): F;
  inRootSpan<T>(name: string, run: () => Promise<T>): Promise<T>;
  queueOptions(): Record<string, unknown>;
  shutdown(): Promise<void>;
}

let hooks: TracingHooks | null = null;

/** Called once by the SDK's start (src/tracing/otel-sdk.ts); tests may install their own. */
export function installTracingHooks(implementation: TracingHooks | null): void {
  hooks = implementation;
}

/** Whether this process traces (an `OTEL_*` variable turned it on at start). */
export function tracingOn(): boolean {
  return hooks !== null;
}

/**
 * The active trace context as a W3C carrier, to store with outbox events; null when tracing is
 * off or no span is active.
 */
export function captureTraceContext(): TraceCarrier | null {
  return hooks ? hooks.captureContext() : null;
}

/**
 * Runs one webhook attempt (`run`) inside its span `webhook attempt`, linked to `cause` (the
 * stored context of the upload or action that recorded the event). With tracing off: `run()`.
 */
export function traceAttempt<T extends AttemptSpanResult | null>(
  start: AttemptSpanStart,
  cause: TraceCarrier | null,
  run: () => Promise<T>,
): Promise<T> {
  return hooks ? hooks.traceAttempt(start, cause, run) : run();
}

/**
 * `fn` bound to the active trace context, for code that a queue runs later in another
 * context (a `p-limit` slot); `fn` itself with tracing off.
 */
export function bindTraceContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return hooks ? hooks.bind(fn) : fn;
}

/** Runs `run` in a new root span named `name` (a CLI command); `run()` with tracing off. */
export function inRootSpan<T>(name: string, run: () => Promise<T>): Promise<T> {
  return hooks ? hooks.inRootSpan(name, run) : run();
}

/** BullMQ options that trace its jobs (`telemetry`), spread into the queue's root options; `{}` when off. */
export function tracedQueueOptions(): Record<string, unknown> {
  return hooks ? hooks.queueOptions() : {};
}

/** How long a shutdown waits for the last spans to be exported, in ms. */
export const TRACES_FLUSH_LIMIT_MS = 3_000;

/**
 * Exports the spans still buffered and stops tracing (shutdown); resolves at once when off,
 * and after `limitMs` at most. Never rejects: a collector that cannot be reached costs the
 * spans, never the shutdown or the CLI command's result.
 */
export async function shutdownTracing(limitMs = TRACES_FLUSH_LIMIT_MS): Promise<void> {
  if (!hooks) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    hooks.shutdown().catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, limitMs))),
  ]);
  clearTimeout(timer);
}
