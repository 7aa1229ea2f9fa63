// reads: `GET /webhooks/{cid}/endpoints/{eid}/health` req/s and p50/p99 at READ_CONNECTIONS
// (autocannon, after a warm-up), and the campaign's event types (the same path through
// authentication, rate limit and campaign access, without a database read), against a bare
// Fastify server (bench/lib/fastify-ceiling.mjs) answering a JSON object of the same size.
// Guarded: health ≥ GOALS.health and events ≥ GOALS.events of bare Fastify.
import { request } from 'undici';
import { forkReady, log, note, stopChild } from '../lib/harness.mjs';
import { warmLoad } from '../lib/load.mjs';
import { GOALS, HEALTH_P99_GOAL_MS, READ_CONNECTIONS } from '../lib/settings.mjs';
import { ratioOf } from '../lib/stats.mjs';

/** Health of the "hooks" endpoint at READ_CONNECTIONS, then a bare Fastify, the same way. */
export async function measure(ctx) {
  const { sizes, healthPath } = ctx;
  const { hooks } = ctx.campaigns;
  const health = await ctx.call('GET', healthPath, { token: ctx.token });
  if (health.status !== 200) throw new Error(`health answered ${health.status}: ${health.text}`);
  const reads = { body_bytes: Buffer.byteLength(health.text) };
  const headers = { authorization: `Bearer ${ctx.token}` };
  const options = { headers, connections: READ_CONNECTIONS };
  const apiPid = ctx.state.api.pid;
  reads.ours = await warmLoad(
    'reads (ours)',
    { ...options, url: `${ctx.base}${healthPath}` },
    sizes.readSeconds,
    sizes.loadWarmupSeconds,
    apiPid,
  );
  // The event types: the same path through authentication, rate limit and campaign access,
  // without a database read.
  reads.events = await warmLoad(
    'reads: events (ours)',
    { ...options, url: `${ctx.base}/api/v1/webhooks/${hooks.id}/events` },
    sizes.readSeconds,
    sizes.loadWarmupSeconds,
    apiPid,
  );

  const fastify = await forkReady('lib/fastify-ceiling.mjs', { BENCH_BODY: health.text });
  ctx.state.fastify = fastify.child;
  try {
    const url = `http://127.0.0.1:${fastify.port}${healthPath}`;
    const check = await request(url);
    reads.ceiling_body_bytes = Buffer.byteLength(await check.body.text());
    if (reads.ceiling_body_bytes !== reads.body_bytes) {
      note(`reads: ceiling body ${reads.ceiling_body_bytes} bytes, ours ${reads.body_bytes}`);
    }
    reads.ceiling = await warmLoad(
      'reads (bare Fastify)',
      { ...options, url },
      sizes.readSeconds,
      sizes.loadWarmupSeconds,
      fastify.child.pid,
    );
  } finally {
    await stopChild(fastify.child, 'SIGTERM', 5_000);
  }
  log(
    `reads: health ${Math.round(reads.ours.requests_per_s)} ` +
      `(${reads.ours.cpu_us_per_request?.toFixed(0)} µs CPU each), ` +
      `events ${Math.round(reads.events.requests_per_s)} ` +
      `(${reads.events.cpu_us_per_request?.toFixed(0)} µs), ` +
      `Fastify ${Math.round(reads.ceiling.requests_per_s)} req/s ` +
      `(${reads.ceiling.cpu_us_per_request?.toFixed(0)} µs)`,
  );
  return reads;
}

/** The table's reads rows: health req/s (guarded), p50, p99, and events (guarded). */
export function addRows(r, add) {
  const conns = `${READ_CONNECTIONS} conns`;
  const { ours, ceiling } = r.reads;
  const label = 'bare Fastify';
  const readsRatio = ratioOf(ours.requests_per_s, ceiling.requests_per_s);
  add(`reads: health (${conns})`, {
    ours: ours.requests_per_s,
    ceiling: ceiling.requests_per_s,
    unit: 'req/s',
    label,
    goal: `≥ ${GOALS.health} of bare Fastify`,
    met: readsRatio == null ? null : readsRatio >= GOALS.health,
    guard: GOALS.health,
  });
  add(`reads: health p50 (${conns})`, {
    ours: ours.p50_ms,
    ceiling: ceiling.p50_ms,
    unit: 'ms',
    label,
  });
  add(`reads: health p99 (${conns})`, {
    ours: ours.p99_ms,
    ceiling: ceiling.p99_ms,
    unit: 'ms',
    label,
    goal: `≤ ${HEALTH_P99_GOAL_MS} ms`,
    met: ours.p99_ms == null ? null : ours.p99_ms <= HEALTH_P99_GOAL_MS,
  });
  const { events } = r.reads;
  const eventsRatio = ratioOf(events.requests_per_s, ceiling.requests_per_s);
  add(`reads: events, no database (${conns})`, {
    ours: events.requests_per_s,
    ceiling: ceiling.requests_per_s,
    unit: 'req/s',
    label,
    goal: `≥ ${GOALS.events} of bare Fastify`,
    met: eventsRatio == null ? null : eventsRatio >= GOALS.events,
    guard: GOALS.events,
  });
}
