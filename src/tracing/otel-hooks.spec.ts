import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTEMPT_SPAN, OtelTracingHooks } from './otel-hooks';

describe('OtelTracingHooks', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  let hooks: OtelTracingHooks;

  beforeAll(() => {
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(provider);
    hooks = new OtelTracingHooks();
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const start = { messageId: 'evt-1', endpointId: 7, deliveryId: 3, eventType: 'lead.created' };
  const result = (statusCode: number | null, success: boolean) => ({
    id: 11,
    result: { statusCode, success, durationMs: 12.5 },
  });

  it('captures no context outside a span, and the W3C traceparent inside one', async () => {
    expect(hooks.captureContext()).toBeNull();
    const captured = await hooks.inRootSpan('cli event emit', async () => hooks.captureContext());
    const [span] = exporter.getFinishedSpans();
    expect(captured).toEqual({
      traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
    });
  });

  it('runs an attempt without a span around it as a child of the stored context, linked to it', async () => {
    const cause = await hooks.inRootSpan('upload', async () => hooks.captureContext());
    const [upload] = exporter.getFinishedSpans();
    await hooks.traceAttempt({ ...start, scheduled: { attemptCount: 1 } }, cause, async () =>
      result(503, false),
    );
    const attempt = exporter.getFinishedSpans().find((s) => s.name === ATTEMPT_SPAN)!;
    expect(attempt.spanContext().traceId).toBe(upload.spanContext().traceId);
    expect(attempt.parentSpanContext?.spanId).toBe(upload.spanContext().spanId);
    expect(attempt.links.map((l) => l.context.spanId)).toEqual([upload.spanContext().spanId]);
    expect(attempt.attributes).toEqual({
      'webhook.id': 'evt-1',
      'webhook.endpoint_id': 7,
      'webhook.delivery_id': 3,
      'webhook.event_type': 'lead.created',
      'webhook.attempt_number': 2,
      'webhook.attempt_id': 11,
      'webhook.duration_ms': 12.5,
      'webhook.outcome': 'failed',
      'http.response.status_code': 503,
      'error.type': '503',
    });
  });

  it('runs an attempt under the span that runs it (a job), still linked to the stored context', async () => {
    const cause = await hooks.inRootSpan('upload', async () => hooks.captureContext());
    await hooks.inRootSpan('process webhook-delivery', () =>
      hooks.traceAttempt(start, cause, async () => result(204, true)),
    );
    const spans = exporter.getFinishedSpans();
    const [upload, job] = [spans[0], spans.find((s) => s.name === 'process webhook-delivery')!];
    const attempt = spans.find((s) => s.name === ATTEMPT_SPAN)!;
    expect(attempt.parentSpanContext?.spanId).toBe(job.spanContext().spanId);
    expect(attempt.links.map((l) => l.context.spanId)).toEqual([upload.spanContext().spanId]);
    expect(attempt.attributes).toMatchObject({
      'webhook.outcome': 'succeeded',
      'http.response.status_code': 204,
    });
  });

  it('makes a root attempt span without a link when no context was stored (tracing was off)', async () => {
    await hooks.traceAttempt({ ...start, deliveryId: null }, null, async () => null);
    const [attempt] = exporter.getFinishedSpans();
    expect(attempt.parentSpanContext).toBeUndefined();
    expect(attempt.links).toEqual([]);
    expect(attempt.attributes).toMatchObject({ 'webhook.outcome': 'not_sent' });
    expect(attempt.attributes).not.toHaveProperty('webhook.delivery_id');
  });
});
