#!/usr/bin/env node
// Endpoint throttling isolation figures, printed (never asserted): does an endpoint throttled
// to --rate deliveries per second slow an unthrottled endpoint fed the same events?
//
//   npm run build && node bench/throttle-isolation.mjs [--events 2000] [--rate 5] [--observe 10]
//
// Starts `node dist/main.js` (API + worker) on a fresh database of its own (BENCH_DATABASE,
// default campaign_api_bench_throttle) with a unique QUEUE_PREFIX, and two local receivers
// answering 204. Then, one after the other:
//   1. warm-up: 200 events to an unthrottled endpoint of a campaign of its own;
//   2. alone: --events lead.created events to a campaign with one unthrottled endpoint ("fast");
//   3. with:  --events events to a campaign with an unthrottled endpoint ("fast") and one
//      throttled to --rate/s ("slow"): both get every event.
// For each, the fast endpoint's lag, from the event being recorded (its body's `timestamp`)
// to its arrival at the receiver, p50/p99/max over every event; the run stops once the fast
// endpoint has all of them (it does not wait for the slow one), and reports how many the slow
// one had by then and its measured rate (arrivals − 1 over the time from its first to its
// last), then goes on counting the slow one's arrivals for --observe seconds more (never the
// 400 s its backlog would take) for a steadier rate. It prints the machine's load average
// beside the figures: run it alone on the machine, a parallel load changes them.
import { createServer } from 'node:http';
import os from 'node:os';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import Redis from 'ioredis';
import pg from 'pg';
import { accessToken, benchEnv, cliOf, dropBenchDatabase, startApi } from './lib/service.mjs';
import { percentile } from './lib/stats.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '2000' },
    rate: { type: 'string', default: '5' },
    observe: { type: 'string', default: '10' },
  },
});
const EVENTS = Number(values.events);
const RATE = Number(values.rate);
/** Seconds to go on counting the throttled endpoint's arrivals after the fast one is done. */
const OBSERVE = Number(values.observe);
/** Leads per upload (the events of one upload share their `timestamp`). */
const PER_UPLOAD = 500;
const DB = process.env.BENCH_DATABASE ?? 'campaign_api_bench_throttle';
const PREFIX = `bench-throttle-${Date.now()}`;
const env = benchEnv(process.env, DB, PREFIX);
await dropBenchDatabase(pg, DB);

/** A receiver answering 204 that notes each webhook's arrival (wall clock) and lag. */
async function receiver() {
  const arrivals = [];
  let onArrival = () => {};
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString());
      arrivals.push({ at, lagMs: at - Date.parse(timestamp) });
      res.statusCode = 204;
      res.end();
      onArrival();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    arrivals,
    /** Resolves once `n` webhooks arrived in all. */
    waitFor: (n) =>
      new Promise((resolve) => {
        onArrival = () => arrivals.length >= n && resolve();
        onArrival();
      }),
    close: () => server.close(),
  };
}

const fast = await receiver();
const slow = await receiver();
const { api, base } = await startApi(root, env);
const cli = cliOf(root, env);
const account = cli('account', 'create', '--name', 'Bench throttle');
const { api_key } = cli('api-key', 'create', '--account', String(account.id));
const access_token = await accessToken(base, api_key);

/** A campaign with an endpoint at each of `urls` (`[url, ...extra CLI options]`). */
function campaignWith(name, endpoints) {
  const campaign = cli('campaign', 'create', '--account', String(account.id), '--name', name);
  for (const [url, ...options] of endpoints) {
    cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      url,
      '--events',
      'lead.created',
      ...options,
    );
  }
  return campaign.id;
}

let phone = 3_000_000;
async function feed(campaignId, count) {
  for (let sent = 0; sent < count; sent += PER_UPLOAD) {
    const leads = Array.from({ length: Math.min(PER_UPLOAD, count - sent) }, () => ({
      phone: `+1212${phone++}`,
    }));
    const res = await fetch(`${base}/api/v1/leads/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
      body: JSON.stringify({ campaign_id: campaignId, compliance_acknowledged: true, leads }),
    });
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    await res.json();
  }
}

/** The lag figures of the fast receiver's arrivals from index `from` on. */
function lagOf(from) {
  const lags = fast.arrivals
    .slice(from)
    .map((a) => a.lagMs)
    .sort((a, b) => a - b);
  const span = fast.arrivals.at(-1).at - fast.arrivals[from].at;
  return {
    deliveries: lags.length,
    lag_ms: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.at(-1) },
    seconds_first_to_last: +(span / 1000).toFixed(2),
  };
}

// 1. Warm-up.
await feed(campaignWith('Warm-up', [[fast.url]]), 200);
await fast.waitFor(200);

// 2. The fast endpoint alone.
let from = fast.arrivals.length;
await feed(campaignWith('Alone', [[fast.url]]), EVENTS);
await fast.waitFor(from + EVENTS);
const alone = lagOf(from);

// 3. With an endpoint throttled to RATE/s fed the same events.
from = fast.arrivals.length;
const startedAt = Date.now();
await feed(
  campaignWith('With throttled', [[fast.url], [slow.url, '--max-per-second', String(RATE)]]),
  EVENTS,
);
await fast.waitFor(from + EVENTS);
const withThrottled = lagOf(from);
const slowWhenFastDone = slow.arrivals.length;
const secondsWhenFastDone = (Date.now() - startedAt) / 1000;
await new Promise((resolve) => setTimeout(resolve, OBSERVE * 1000));
const slowTimes = slow.arrivals.map((a) => a.at);
const slowSpan = (slowTimes.at(-1) - slowTimes[0]) / 1000;
/** The most arrivals of the slow endpoint in any one second (from an arrival on). */
let mostInASecond = 0;
for (let i = 0, j = 0; i < slowTimes.length; i++) {
  while (slowTimes[i] - slowTimes[j] >= 1000) j++;
  mostInASecond = Math.max(mostInASecond, i - j + 1);
}

console.log(
  JSON.stringify(
    {
      events: EVENTS,
      cpus: os.cpus().length,
      load_average_1m: +os.loadavg()[0].toFixed(2),
      fast_alone: alone,
      fast_with_throttled: withThrottled,
      throttled: {
        limit_per_second: RATE,
        received_when_fast_done: slowWhenFastDone,
        seconds_from_feed_start_to_fast_done: +secondsWhenFastDone.toFixed(2),
        received_after_observing: slowTimes.length,
        observed_seconds_first_to_last: +slowSpan.toFixed(2),
        measured_per_second:
          slowTimes.length > 1 ? +((slowTimes.length - 1) / slowSpan).toFixed(2) : null,
        most_in_any_second: mostInASecond,
      },
    },
    null,
    2,
  ),
);

api.kill('SIGTERM');
await once(api, 'exit');
fast.close();
slow.close();
// The slow endpoint's backlog is still queued: remove this run's keys (its namespace only).
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
for (const pattern of [`{${PREFIX}}*`, `${PREFIX}*`, `{${PREFIX}:*`]) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
redis.disconnect();
