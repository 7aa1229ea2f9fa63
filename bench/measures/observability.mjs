// observability: what metrics and tracing cost (docs/operations.md). Health reads at
// READ_CONNECTIONS and one N-lead dispatch with both off, with Prometheus metrics on, and with
// tracing on at 100 % and 10 % sampling (exported to a local OTLP sink), each as a share of
// "both off" (goals: metrics ≥ 0.9, tracing ≥ 0.75; not guarded).
import { once } from 'node:events';
import { request } from 'undici';
import { startApi } from '../lib/api-process.mjs';
import { log, note, stopChild } from '../lib/harness.mjs';
import { warmLoad } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { READ_CONNECTIONS } from '../lib/settings.mjs';
import { median, ratioOf } from '../lib/stats.mjs';
import { dispatchUpload } from './dispatch.mjs';

/**
 * A local OTLP/HTTP sink for the tracing variant: answers every export 200 and counts the
 * bytes, so spans are really encoded and sent as they would be to a collector.
 */
async function startOtlpSink() {
  const { createServer } = await import('node:http');
  const sink = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    sink.requests++;
    req.on('data', (chunk) => (sink.bytes += chunk.length));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  sink.url = `http://127.0.0.1:${server.address().port}`;
  sink.close = () => new Promise((resolve) => server.close(resolve));
  return sink;
}

/** A free TCP port of 127.0.0.1 (for the metrics variant's METRICS_PORT). */
async function freePort() {
  const { createServer } = await import('node:net');
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * What metrics and tracing cost (docs/operations.md): the API is restarted four times in turn,
 * with both off, with Prometheus metrics on (`METRICS_PORT`, scraped once a second as a busy
 * Prometheus would), with tracing on at 100 % sampling and at 10 % (`OTEL_*`, exported to a
 * local OTLP sink), each measured the same way: health reads at READ_CONNECTIONS and one N-lead dispatch.
 * The rounds alternate (off, metrics, tracing, off, …) so the machine's drift hits each alike;
 * the median of the rounds is kept. The API left running at the end is the last variant's.
 */
export async function measure(ctx) {
  const { healthPath, sizes } = ctx;
  const sink = await startOtlpSink();
  const metricsPort = await freePort();
  const variants = {
    off: {},
    metrics: { METRICS_PORT: String(metricsPort) },
    tracing: {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_SERVICE_NAME: 'campaign-api-bench',
    },
    // What an operator would run under load: one trace in ten, as the standard variables ask.
    tracing_10: {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_SERVICE_NAME: 'campaign-api-bench',
    },
  };
  const figures = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  const rounds = ctx.quick ? 1 : 3;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, extraEnv] of Object.entries(variants)) {
        await stopChild(ctx.state.api, 'SIGTERM', 35_000);
        const started = await startApi(0, extraEnv);
        ctx.state.api = started.api;
        ctx.base = started.base;
        let scrapes = 0;
        const scraper =
          name === 'metrics'
            ? setInterval(() => {
                request(`http://127.0.0.1:${metricsPort}/metrics`)
                  .then((res) => res.body.text())
                  .then(() => scrapes++)
                  .catch(() => undefined);
              }, 1_000)
            : null;
        try {
          const reads = await warmLoad(
            `observability (${name}): reads`,
            {
              url: `${ctx.base}${healthPath}`,
              headers: { authorization: `Bearer ${ctx.token}` },
              connections: READ_CONNECTIONS,
            },
            sizes.readSeconds,
            sizes.loadWarmupSeconds,
            started.api.pid,
          );
          const dispatch = await dispatchUpload(ctx);
          figures[name].push({
            health_per_s: reads.requests_per_s,
            health_cpu_us: reads.cpu_us_per_request,
            dispatch_per_s: dispatch.per_s ?? null,
            dispatch_cpu_us: dispatch.cpu_us_per_delivery?.api ?? null,
            scrapes,
          });
        } finally {
          if (scraper) clearInterval(scraper);
        }
      }
    }
  } finally {
    await sink.close();
  }
  const mid = (name, key) => median(figures[name].map((f) => f[key]).filter((v) => v != null));
  const result = { rounds, otlp_exports: sink.requests, otlp_bytes: sink.bytes };
  for (const name of Object.keys(variants)) {
    result[name] = {
      health_per_s: mid(name, 'health_per_s'),
      health_cpu_us: mid(name, 'health_cpu_us'),
      dispatch_per_s: mid(name, 'dispatch_per_s'),
      dispatch_cpu_us: mid(name, 'dispatch_cpu_us'),
      runs: figures[name],
    };
  }
  if (sink.requests === 0) note('observability: tracing was on but nothing reached the OTLP sink');
  log(
    `observability: health ${Object.keys(variants)
      .map((n) => `${n} ${Math.round(result[n].health_per_s ?? 0)}`)
      .join(', ')} req/s; ` +
      `dispatch ${Object.keys(variants)
        .map((n) => `${n} ${Math.round(result[n].dispatch_per_s ?? 0)}`)
        .join(', ')} deliveries/s; ` +
      `${sink.requests} OTLP exports (${Math.round(sink.bytes / 1024)} KiB)`,
  );
  return result;
}

/** The table's observability rows (only when it ran): each variant against "both off". */
export function addRows(r, add, sizes) {
  if (!r.observability) return;
  const o = r.observability;
  for (const [name, goal, label] of [
    ['metrics', 0.9, 'metrics on'],
    ['tracing', 0.75, 'tracing on, 100 % sampled'],
    ['tracing_10', 0.75, 'tracing on, 10 % sampled'],
  ]) {
    add(`observability: health, ${label} (${READ_CONNECTIONS} conns)`, {
      ours: o[name].health_per_s,
      ceiling: o.off.health_per_s,
      unit: 'req/s',
      label: 'both off',
      goal: `≥ ${goal}`,
      met: ratioOf(o[name].health_per_s, o.off.health_per_s) >= goal,
    });
    add(`observability: dispatch, ${label} (${count(sizes.dispatchLeads)} leads)`, {
      ours: o[name].dispatch_per_s,
      ceiling: o.off.dispatch_per_s,
      unit: 'deliveries/s',
      label: 'both off',
      goal: `≥ ${goal}`,
      met: ratioOf(o[name].dispatch_per_s, o.off.dispatch_per_s) >= goal,
    });
  }
}
