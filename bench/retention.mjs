#!/usr/bin/env node
// Upload and delivery latency while retention drops a large partition, printed (never
// asserted). Starts `node dist/main.js` (API + worker) on a fresh database of its own, fills
// the attempts' partition of 40 days ago with --attempts attempts (10 per delivery, one
// delivery per event, bodies and headers as the service writes them), then runs uploads of
// 10 leads from --clients loops at once: first for --seconds seconds alone (baseline), then
// while the service's own retention pass (DeliveryRetention.run, from dist/) drops that
// partition and deletes the expired events. Each upload's latency (request to 202) and its
// 202 to first delivery are compared, p50 and p99, baseline against during the pass.
//
//   npm run build && node bench/retention.mjs [--attempts 1000000] [--clients 4] [--seconds 10]
import { createServer } from 'node:http';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';
import { givenCampaign, startApi } from './lib/service.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { values } = parseArgs({
  options: {
    attempts: { type: 'string', default: '1000000' },
    clients: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '10' },
  },
});
const ATTEMPTS = Number(values.attempts);
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const DB = process.env.BENCH_DATABASE ?? 'campaign_api_bench';
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DB}`;
const env = {
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL,
  QUEUE_PREFIX: `bench-${Date.now()}`,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_API_PER_MIN: '1000000',
  RATE_LIMIT_TOKEN_PER_MIN: '1000000',
  DELIVERY_RETENTION_DAYS: '30',
  // The bench runs the pass itself, at a known time.
  DELIVERY_RETENTION_INTERVAL_MS: '86400000',
};
const DAY_MS = 86_400_000;

const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
await admin.end();

// A receiver answering 204 that notes when each upload's first webhook arrives.
const firstArrival = new Map();
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const importId = JSON.parse(Buffer.concat(chunks).toString()).data?.import_id;
    if (importId && !firstArrival.has(importId)) firstArrival.set(importId, at);
    res.statusCode = 204;
    res.end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const { api, base } = await startApi(root, env, []);
const {
  campaign,
  endpoint,
  accessToken: access_token,
} = await givenCampaign(root, env, base, receiverUrl);

// The expired day: its partition, events, deliveries and attempts, written with SQL.
const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const old = new Date(today - 40 * DAY_MS);
const { partitionName } = require(join(root, 'dist/delivery/retention/attempt-partitions.js'));
const { ensureAttemptPartitions } = require(
  join(root, 'dist/delivery/retention/attempt-partitions.repository.js'),
);
const { DataSource } = require(join(root, 'node_modules/typeorm'));
const { buildDataSourceOptions } = require(join(root, 'dist/database/database-options.js'));
const { loadConfig } = require(join(root, 'dist/config/app-config.js'));
const { DeliveryRetention } = require(
  join(root, 'dist/delivery/retention/delivery-retention.service.js'),
);
const { DeliveryRetentionRepository } = require(
  join(root, 'dist/delivery/retention/delivery-retention.repository.js'),
);
const { AttemptPartitionsRepository } = require(
  join(root, 'dist/delivery/retention/attempt-partitions.repository.js'),
);
const { ImportRejectionRetention } = require(
  join(root, 'dist/leads/history/import-rejection-retention.service.js'),
);
const { ImportRejectionsRepository } = require(
  join(root, 'dist/leads/history/import-rejections.repository.js'),
);
const dataSource = new DataSource(buildDataSourceOptions(DATABASE_URL, 4));
await dataSource.initialize();
await ensureAttemptPartitions(dataSource, old, old);
const fillStarted = performance.now();
const deliveries = Math.ceil(ATTEMPTS / 10);
await db.query(
  `INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
   SELECT gen_random_uuid(), $1, 'lead.created',
          '{"type":"lead.created","timestamp":"2026-01-01T00:00:00.000Z","data":{"lead_id":' || g || ',"phone":"+14155550100","email":"ada@example.com","first_name":"Ada","last_name":"Lovelace"}}',
          $2::timestamptz + g * interval '1 ms'
     FROM generate_series(1, $3::int) g`,
  [campaign.id, old, deliveries],
);
await db.query(
  `INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, created_at)
   SELECT id, $1, 'failed', 10, created_at FROM webhook_event WHERE created_at < $2`,
  [endpoint.id, new Date(today - 30 * DAY_MS)],
);
await db.query(
  `INSERT INTO webhook_delivery_attempt
     (endpoint_id, delivery_id, message_id, event_type, attempted_at, finished_at, duration_ms,
      status_code, success, error, response_excerpt, request_url, request_headers, attempt_number,
      delivery_created_at)
   SELECT $1, d.id, d.event_id::text, 'lead.created', d.created_at + n * interval '1 minute',
          d.created_at + n * interval '1 minute', 120, 500, false, 'HTTP 500',
          '{"error":"upstream unavailable","retry":true}', $2,
          '{"content-type":"application/json","webhook-id":"x","webhook-timestamp":"1700000000","webhook-signature":"v1,K5oZfzN95Z9U…"}',
          n, d.created_at
     FROM webhook_delivery d, generate_series(1, 10) n
    WHERE d.endpoint_id = $1 AND d.created_at < $3`,
  [endpoint.id, receiverUrl, new Date(today - 30 * DAY_MS)],
);
const [{ size }] = (
  await db.query(`SELECT pg_size_pretty(pg_total_relation_size($1)) AS size`, [partitionName(old)])
).rows;
const fillSeconds = (performance.now() - fillStarted) / 1000;
await db.query('VACUUM ANALYZE');

let phone = 2_000_000;
const samples = [];
async function upload() {
  const leads = Array.from({ length: 10 }, () => ({ phone: `+1212${phone++}` }));
  const sent = performance.now();
  const res = await fetch(`${base}/api/v1/leads/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
    body: JSON.stringify({ campaign_id: campaign.id, compliance_acknowledged: true, leads }),
  });
  const accepted = performance.now();
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  const body = await res.json();
  return { sent, accepted, importId: body.import_id };
}
let running = true;
const loops = Array.from({ length: CLIENTS }, async () => {
  while (running) samples.push(await upload());
});

function firstDeliveryMs(sample) {
  const at = firstArrival.get(sample.importId);
  return at === undefined ? null : at - sample.accepted;
}

await new Promise((r) => setTimeout(r, 2000)); // warm-up
const baselineFrom = performance.now();
await new Promise((r) => setTimeout(r, SECONDS * 1000));
const passFrom = performance.now();
const retention = new DeliveryRetention(
  new DeliveryRetentionRepository(dataSource),
  new AttemptPartitionsRepository(dataSource),
  new ImportRejectionRetention(new ImportRejectionsRepository()),
  { ensureAhead: async () => [] },
  loadConfig({ ...env }),
);
const report = await retention.run();
const passTo = performance.now();
// Let uploads still in flight finish, and their deliveries arrive.
running = false;
await Promise.all(loops);
await new Promise((r) => setTimeout(r, 2000));

const pct = (values, p) => {
  const sorted = values.filter((v) => v !== null).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  return +sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(1);
};
function figures(from, to) {
  const during = samples.filter((s) => s.sent < to && s.accepted > from);
  const upload = during.map((s) => s.accepted - s.sent);
  const delivery = during.map(firstDeliveryMs);
  return {
    uploads: during.length,
    upload_ms: { p50: pct(upload, 50), p99: pct(upload, 99) },
    first_delivery_ms: { p50: pct(delivery, 50), p99: pct(delivery, 99) },
  };
}
const baseline = figures(baselineFrom, passFrom);
const dropTo = passFrom + report.stepsMs.partitions;
const drop = figures(passFrom, dropTo);
const deletion = figures(dropTo, dropTo + report.stepsMs.events);
const ratio = (during, key) => +(during[key].p99 / baseline[key].p99).toFixed(2);
console.log(
  JSON.stringify(
    {
      expired_partition: {
        attempts: ATTEMPTS,
        events: deliveries,
        size,
        fill_seconds: +fillSeconds.toFixed(1),
      },
      pass: {
        seconds: +((passTo - passFrom) / 1000).toFixed(2),
        steps_ms: report.stepsMs,
        dropped_partitions: report.droppedPartitions,
        deleted_events: report.deletedEvents,
      },
      baseline,
      during_partition_drop: drop,
      during_event_deletion: deletion,
      ratio_p99_during_drop: {
        upload: ratio(drop, 'upload_ms'),
        first_delivery: ratio(drop, 'first_delivery_ms'),
      },
      ratio_p99_during_event_deletion: {
        upload: ratio(deletion, 'upload_ms'),
        first_delivery: ratio(deletion, 'first_delivery_ms'),
      },
    },
    null,
    2,
  ),
);
await dataSource.destroy();
await db.end();
api.kill('SIGTERM');
await once(api, 'exit');
receiver.close();
