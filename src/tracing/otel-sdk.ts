/* eslint-disable @typescript-eslint/no-require-imports -- the one exporter chosen is loaded on demand */
import { diag } from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import {
  envDetector,
  hostDetector,
  osDetector,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace';
import { OtelTracingHooks } from './otel-hooks';
import { ScrubbingSpanExporter } from './span-scrubber';
import { installTracingHooks } from './trace-hooks';

/** `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one. */
export const DEFAULT_SERVICE_NAME = 'campaign-api';

/** Requests never traced: the health probes, which come every few seconds. */
const HEALTH = '/health/';

/**
 * The span exporter the `OTEL_*` variables ask for: `OTEL_TRACES_EXPORTER` `otlp` (the default)
 * or `console` (the first of a list); for OTLP, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or
 * `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` (the default), `http/json` or `grpc`. Each
 * OTLP exporter reads its endpoint, headers, timeout and compression from the standard
 * variables itself.
 */
export function traceExporterFromEnv(env: NodeJS.ProcessEnv = process.env): SpanExporter {
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'none');
  const name = names[0] ?? 'otlp';
  if (name === 'console') return new ConsoleSpanExporter();
  if (name !== 'otlp') diag.warn(`OTEL_TRACES_EXPORTER "${name}" is not supported; using otlp`);
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  switch (protocol) {
    case 'http/json': {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter();
    }
    case 'grpc': {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc');
      return new OTLPTraceExporter();
    }
    default: {
      if (protocol !== 'http/protobuf') {
        diag.warn(`OTLP protocol "${protocol}" is not supported; using http/protobuf`);
      }
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter();
    }
  }
}

/** The request target without its query string. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The instrumentations (docs/operations.md#spans), each set up to record no secret and no
 * lead's data. Incoming requests: one server span each from Fastify's `onRequest` to its
 * `onSend` (`@fastify/otel`, which also continues a caller's `traceparent`), named
 * `METHOD route`, with the path but not the query string, the route, the status code and the
 * `User-Agent` (no other header); no span per hook or handler, no exception messages.
 * `@opentelemetry/instrumentation-http` is left out: its server span duplicated this one and
 * cost more than the request it measured (bench/README.md, observability). Outgoing HTTP is not
 * instrumented: webhook URLs may carry a receiver's token. PostgreSQL statements as their
 * parametrized text, never the values, and only inside a trace (no span for a pool
 * check-out); Redis commands by name only, never keys or arguments, and only inside a trace.
 */
function instrumentations() {
  return [
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      instrumentHooks: false,
      instrumentHandler: false,
      recordExceptions: false,
      ignorePaths: (route) => route.url.startsWith(HEALTH),
      requestHook: (span, request) => {
        const route = request.routeOptions.url;
        span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
        span.setAttribute('url.path', pathOf(request.url));
        const userAgent = request.headers['user-agent'];
        if (userAgent !== undefined) span.setAttribute('user_agent.original', userAgent);
      },
    }),
    // No span per pool check-out (`pg-pool.connect`): a query span says enough, and each span
    // costs CPU on every request (bench/README.md, observability).
    new PgInstrumentation({
      requireParentSpan: true,
      enhancedDatabaseReporting: false,
      ignoreConnectSpans: true,
    }),
    new IORedisInstrumentation({
      requireParentSpan: true,
      dbStatementSerializer: (command) => command,
    }),
  ];
}

/**
 * Starts the OpenTelemetry SDK for traces (src/tracing.ts calls it before any other module is
 * loaded, when `tracingRequested`): the sampler (`OTEL_TRACES_SAMPLER`, `…_ARG`), resource
 * (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`), propagators, span limits and batch
 * settings come from the standard variables, read by `@opentelemetry/sdk-node`; the exporter
 * from {@link traceExporterFromEnv}, behind {@link ScrubbingSpanExporter}. No metrics and no
 * logs are exported. The resource leaves out the process detector, whose command line could
 * carry a CLI argument, unless `OTEL_NODE_RESOURCE_DETECTORS` asks for it. Installs the
 * tracing hooks (src/tracing/trace-hooks.ts).
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): void {
  const named =
    (env.OTEL_SERVICE_NAME ?? '').trim() !== '' ||
    /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : DEFAULT_SERVICE_NAME,
    resourceDetectors: env.OTEL_NODE_RESOURCE_DETECTORS
      ? undefined
      : [serviceInstanceIdDetector, hostDetector, osDetector, envDetector],
    traceExporter: new ScrubbingSpanExporter(traceExporterFromEnv(env)),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: instrumentations(),
  });
  sdk.start();
  installTracingHooks(new OtelTracingHooks(() => sdk.shutdown()));
}
