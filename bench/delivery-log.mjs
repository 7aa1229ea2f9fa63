#!/usr/bin/env node
// The dashboard's delivery log at scale (docs/dashboard.md#delivery-log): one endpoint with
// 1,000,000 finished attempts (plus 300,000 of three other endpoints, interleaved in time),
// inserted with SQL, then EXPLAIN (ANALYZE, BUFFERS) and timings of the pages a user asks for:
// the first page, a deep page (cursor 900,000 rows back), and filtered pages (outcome, event
// type, ping, time range, and combinations). The SQL is the service's own: built by the
// compiled DeliveryRepository.findAttempts from parameters checked by parseDeliveryLogQuery,
// with the limit the service asks for (limit + 1). Prints figures; asserts nothing.
//
// Build first (`npm run build`); PostgreSQL on 127.0.0.1:5432 as for the tests. Drops and
// recreates the database `campaign_api_bench_log`.
//
//   node bench/delivery-log.mjs [--attempts N] [--runs N]
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const root = join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    attempts: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '30' },
  },
});
const ATTEMPTS = Number(args.attempts);
const RUNS = Number(args.runs);
const OTHER_ENDPOINTS = 3;
const OTHER_ATTEMPTS = Math.round(ATTEMPTS / 10);
const DATABASE = 'campaign_api_bench_log';
const server = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const databaseUrl = `${server}/${DATABASE}`;

const load = async (path) => (await import(join(root, 'dist', path))).default;
const { prepareDatabase } = await load('database/prepare-database.js');
const { DeliveryRepository } = await load('delivery/delivery.repository.js');
const { parseDeliveryLogQuery, encodeLogCursor } = await load('delivery/delivery-log.js');

const log = (line) => process.stdout.write(`${line}\n`);
const since = (start) => ((performance.now() - start) / 1000).toFixed(1);

const admin = new pg.Client({ connectionString: `${server}/postgres` });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
await admin.end();
await prepareDatabase(databaseUrl);
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();

const { rows: version } = await db.query('SHOW server_version');
log(`PostgreSQL ${version[0].server_version}; ${ATTEMPTS} attempts of one endpoint`);

// One account and campaign; the measured endpoint and three others.
await db.query(`INSERT INTO account (name) VALUES ('bench')`);
await db.query(`INSERT INTO campaign (account_id, name) SELECT id, 'bench' FROM account`);
const { rows: endpoints } = await db.query(
  `INSERT INTO webhook_endpoint (campaign_id, url, subscribed_events, secret_encrypted)
   SELECT c.id, 'https://crm.example.com/hooks/' || n, '{lead.created,leads.bulk_created}', 'not-a-secret'
     FROM campaign c, generate_series(0, $1::int) AS n
   RETURNING id`,
  [OTHER_ENDPOINTS],
);
const endpointId = endpoints[0].id;

/**
 * Attempts like the service writes them. Types: 80 % lead.created, 10 % leads.bulk_created,
 * 5 % call.completed, 3 % lead.status_changed, 1.9 % form.submitted, 0.1 % pings.
 * Outcomes: 2 % failed, plus an outage of 5,000 consecutive failures. Time: 90 days back from
 * 2026-11-23, two attempts per instant (ties), microseconds kept.
 */
const insertAttempts = (endpoint, count, offsetMs) =>
  db.query(
    `INSERT INTO webhook_delivery_attempt
       (endpoint_id, delivery_id, message_id, event_type, attempted_at, finished_at, duration_ms,
        status_code, success, error, response_excerpt, request_url, request_headers, request_body)
     SELECT $1, NULL, gen_random_uuid()::text, g.type, g.at, g.at + interval '40 ms', 20 + g.i % 180,
            CASE WHEN g.ok THEN 204 ELSE 500 END, g.ok, CASE WHEN g.ok THEN NULL ELSE 'HTTP 500' END,
            CASE WHEN g.ok THEN NULL ELSE 'upstream unavailable' END,
            'https://crm.example.com/hooks',
            json_build_object('content-type', 'application/json', 'user-agent', 'campaign-api-webhooks/1',
                              'webhook-id', 'bench', 'webhook-timestamp', extract(epoch FROM g.at)::bigint::text,
                              'webhook-signature', 'v1,K5oZfzN95Z9U…'),
            CASE WHEN g.type = 'ping' THEN '{"type":"ping"}' END
       FROM (SELECT i,
                    timestamptz '2026-11-23 00:00:00.000001+00'
                      - ((i / 2) * $3::bigint + $4::bigint) * interval '1 microsecond' AS at,
                    NOT ((i * 104729) % 100 < 2 OR i BETWEEN 300000 AND 304999) AS ok,
                    CASE WHEN (i * 7919) % 1000 < 800 THEN 'lead.created'
                         WHEN (i * 7919) % 1000 < 900 THEN 'leads.bulk_created'
                         WHEN (i * 7919) % 1000 < 950 THEN 'call.completed'
                         WHEN (i * 7919) % 1000 < 980 THEN 'lead.status_changed'
                         WHEN (i * 7919) % 1000 < 999 THEN 'form.submitted'
                         ELSE 'ping'
                    END AS type
               FROM generate_series(1::bigint, $2::bigint) AS i) AS g`,
    // 90 days in µs, spread over count / 2 instants.
    [endpoint, count, Math.floor((7_776_000_000_000 * 2) / count), offsetMs * 1000],
  );

let started = performance.now();
await insertAttempts(endpointId, ATTEMPTS, 0);
for (const [n, other] of endpoints.slice(1).entries()) {
  await insertAttempts(other.id, OTHER_ATTEMPTS, 1000 * (n + 1));
}
log(`inserted ${ATTEMPTS + OTHER_ENDPOINTS * OTHER_ATTEMPTS} attempts in ${since(started)} s`);
started = performance.now();
await db.query('VACUUM (ANALYZE) webhook_delivery_attempt');
log(`VACUUM (ANALYZE) in ${since(started)} s`);
const { rows: sizes } = await db.query(
  `SELECT c.relname, pg_size_pretty(pg_relation_size(c.oid)) AS size
     FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
    WHERE i.indrelid = 'webhook_delivery_attempt'::regclass
   UNION ALL SELECT 'table (heap)', pg_size_pretty(pg_relation_size('webhook_delivery_attempt'))
   ORDER BY 1`,
);
for (const row of sizes) log(`  ${row.relname}: ${row.size}`);

// The service's SQL: DeliveryRepository.findAttempts with a data source that only records.
let captured;
const repository = new DeliveryRepository({
  query: async (sql, params) => {
    captured = { sql, params };
    return [];
  },
});
async function serviceSql(query) {
  const filter = parseDeliveryLogQuery(query);
  await repository.findAttempts(endpointId, { ...filter, limit: filter.limit + 1 });
  return captured;
}

/** The cursor of the attempt `offset` rows from the newest (of the whole log). */
async function cursorAt(offset) {
  const { rows } = await db.query(
    `SELECT id, (extract(epoch FROM attempted_at) * 1000000)::bigint::text AS us
       FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL
      ORDER BY attempted_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [endpointId, offset],
  );
  return encodeLogCursor({ attemptedAtUs: rows[0].us, id: Number(rows[0].id) });
}

const deep = await cursorAt(Math.floor(ATTEMPTS * 0.9));
const CASES = [
  ['first page', {}],
  ['deep page (cursor 900,000 back)', { cursor: deep }],
  ['outcome=failed', { outcome: 'failed' }],
  ['outcome=failed, deep page', { outcome: 'failed', cursor: deep }],
  ['event_type=form.submitted (1.9 %)', { event_type: 'form.submitted' }],
  ['event_type=ping (0.1 %)', { event_type: 'ping' }],
  ['event_type=lead.created, outcome=failed', { event_type: 'lead.created', outcome: 'failed' }],
  [
    'time range (one day, 30 days back)',
    { from: '2026-10-23T00:00:00Z', to: '2026-10-24T00:00:00Z' },
  ],
  [
    'time range + outcome=failed + event_type=call.completed',
    {
      from: '2026-09-01T00:00:00Z',
      to: '2026-11-01T00:00:00Z',
      outcome: 'failed',
      event_type: 'call.completed',
    },
  ],
  ['time range + cursor, limit 100', { to: '2026-11-01T00:00:00Z', cursor: deep, limit: 100 }],
];

const summary = [];
for (const [name, query] of CASES) {
  const { sql, params } = await serviceSql(query);
  const { rows: plan } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  const lines = plan.map((row) => row['QUERY PLAN']);
  log(`\n=== ${name}: ${JSON.stringify(query).replace(deep, '<deep>')}`);
  for (const line of lines) log(line);
  const times = [];
  let returned = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    const start = performance.now();
    const result = await db.query(sql, params);
    if (i >= 3) times.push(performance.now() - start);
    returned = result.rowCount;
  }
  times.sort((a, b) => a - b);
  summary.push({
    name,
    rows: returned,
    execution: lines
      .find((line) => line.startsWith('Execution Time'))
      ?.replace('Execution Time: ', ''),
    buffers: lines.find((line) => line.trim().startsWith('Buffers'))?.trim(),
    median: times[Math.floor(times.length / 2)].toFixed(2),
    p95: times[Math.floor(times.length * 0.95)].toFixed(2),
  });
}

log(`\n=== summary (${RUNS} runs each, wall time from this client, ms)`);
log('| query | rows | EXPLAIN execution | top node buffers | median | p95 |');
log('|---|---|---|---|---|---|');
for (const s of summary) {
  log(`| ${s.name} | ${s.rows} | ${s.execution} | ${s.buffers ?? ''} | ${s.median} | ${s.p95} |`);
}
await db.end();
