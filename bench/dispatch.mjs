#!/usr/bin/env node
// Webhook dispatch figures, printed (never asserted): time from an upload's 202 to the first
// delivery at a local receiver (median and p99 over --uploads uploads of one lead each), and
// deliveries per second for one upload of --leads leads to an endpoint subscribed to
// lead.created. Starts `node dist/main.js` (API + worker) on a fresh database of its own.
//
//   npm run build && node bench/dispatch.mjs [--leads 1000] [--uploads 50]
import { createServer } from 'node:http';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { benchEnv, dropBenchDatabase, givenCampaign, startApi } from './lib/service.mjs';
import { percentile } from './lib/stats.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '1000' },
    uploads: { type: 'string', default: '50' },
  },
});
const LEADS = Number(values.leads);
const UPLOADS = Number(values.uploads);
const DB = process.env.BENCH_DATABASE ?? 'campaign_api_bench';
const env = benchEnv(process.env, DB, `bench-${Date.now()}`);
await dropBenchDatabase(pg, DB);

// A receiver answering 204 that notes when each webhook arrives.
const arrivals = [];
let onArrival = () => {};
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals.push({ at: performance.now(), id: req.headers['webhook-id'] });
    onArrival();
    res.statusCode = 204;
    res.end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const { api, base } = await startApi(
  root,
  env,
  (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
);
const { campaign, accessToken: access_token } = await givenCampaign(root, env, base, receiverUrl);

let phone = 2_000_000;
async function upload(count) {
  const leads = Array.from({ length: count }, () => ({ phone: `+1212${phone++}` }));
  const res = await fetch(`${base}/api/v1/leads/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
    body: JSON.stringify({ campaign_id: campaign.id, compliance_acknowledged: true, leads }),
  });
  const at = performance.now();
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  await res.json();
  return at;
}
function waitForArrivals(n) {
  return new Promise((resolve) => {
    onArrival = () => arrivals.length >= n && resolve();
    onArrival();
  });
}

// Warm-up, then latency: one lead per upload, 202 → first delivery.
await upload(1);
await waitForArrivals(1);
const latencies = [];
for (let i = 0; i < UPLOADS; i++) {
  const before = arrivals.length;
  const acceptedAt = await upload(1);
  await waitForArrivals(before + 1);
  latencies.push(arrivals[before].at - acceptedAt);
}
latencies.sort((a, b) => a - b);

// Throughput: one upload of LEADS leads, first 202 to last delivery.
const before = arrivals.length;
const started = await upload(LEADS);
await waitForArrivals(before + LEADS);
const seconds = (arrivals[arrivals.length - 1].at - started) / 1000;
const ids = new Set(arrivals.slice(before).map((a) => a.id));

const result = {
  latency_202_to_first_delivery_ms: {
    uploads: UPLOADS,
    p50: +percentile(latencies, 50).toFixed(1),
    p99: +percentile(latencies, 99).toFixed(1),
  },
  dispatch: {
    leads: LEADS,
    deliveries: arrivals.length - before,
    distinct_webhook_ids: ids.size,
    seconds: +seconds.toFixed(2),
    deliveries_per_second: Math.round(LEADS / seconds),
  },
};
console.log(JSON.stringify(result, null, 2));
api.kill('SIGTERM');
await once(api, 'exit');
receiver.close();
