#!/usr/bin/env node
// The 30-day chart query at 0, at 100,000 and at N recorded attempts (default 10,000,000): what the
// dashboard's `GET /endpoints/{id}/stats?window=30d` runs (`DeliveryStatsService.of`, the
// rollup read and the aggregation), timed as the median of several runs on a database with no
// attempts and on one with N attempts spread over the last 30 days. The N attempts are
// inserted with SQL before the rollup migration, which then fills the rollups from them (its
// time is printed too). Reads only rollups, so the two medians should be the same.
//
//   npm run build && node bench/chart-query.mjs [--attempts N] [--runs R] [--warmup W] [--reuse]
//
// --reuse measures again on the three databases a previous run left (running any migration
// added since), instead of inserting and backfilling the attempts again.
//
// Databases `campaign_api_bench_chart_0`, `_s` and `_n` (dropped and recreated). PostgreSQL on 127.0.0.1:5432 as for the tests.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import pg from 'pg';

const require = createRequire(import.meta.url);
const { DataSource } = require('typeorm');
const { buildDataSourceOptions } = require('../dist/database/database-options.js');
const { MIGRATIONS } = require('../dist/database/migrations/index.js');
const { ENTITIES } = require('../dist/entities.js');
const {
  DeliveryRollupRepository,
} = require('../dist/delivery/analytics/delivery-rollup.repository.js');
const { DeliveryStatsService } = require('../dist/delivery/analytics/delivery-stats.service.js');

const { values } = parseArgs({
  options: {
    attempts: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '201' },
    warmup: { type: 'string', default: '50' },
    reuse: { type: 'boolean', default: false },
  },
});
const ATTEMPTS = Number(values.attempts);
const RUNS = Number(values.runs);
const WARMUP = Number(values.warmup);
const CHUNK = 1_000_000;
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const urlOf = (name) => `postgres://postgres@127.0.0.1:5432/${name}`;
const log = (message) => console.error(`chart-query: ${message}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function freshDatabase(name) {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
}

/** The database a previous run left, brought up to the latest migration; null when absent. */
async function reuse(name) {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  await admin.end();
  if (rowCount === 0) return null;
  const dataSource = new DataSource({
    ...buildDataSourceOptions(urlOf(name), 2, []),
    migrations: MIGRATIONS,
  });
  await dataSource.initialize();
  const migrating = performance.now();
  const ran = await dataSource.runMigrations({ transaction: 'each' });
  if (ran.length > 0) {
    log(
      `${name}: ${ran.map((m) => m.name).join(', ')} in ${((performance.now() - migrating) / 1000).toFixed(1)} s`,
    );
  }
  await dataSource.query('VACUUM (ANALYZE) endpoint_delivery_rollup');
  const [{ id: endpointId }] = await dataSource.query(
    `SELECT id FROM webhook_endpoint WHERE url = 'https://hooks.example.com/bench'`,
  );
  await dataSource.destroy();
  return { endpointId, backfillSeconds: null };
}

/** A migrated database (all migrations, or all but the rollups' when `attempts` come first). */
async function prepare(name, attempts) {
  if (values.reuse) {
    const reused = await reuse(name);
    if (reused) return reused;
  }
  await freshDatabase(name);
  const rollups = MIGRATIONS.findIndex((m) => m.name.startsWith('DeliveryRollups'));
  const before = attempts > 0 ? MIGRATIONS.slice(0, rollups) : MIGRATIONS;
  const early = new DataSource({
    ...buildDataSourceOptions(urlOf(name), 2, []),
    migrations: before,
  });
  await early.initialize();
  await early.runMigrations({ transaction: 'each' });
  const [{ id: accountId }] = await early.query(
    `INSERT INTO account (name) VALUES ('chart bench') RETURNING id`,
  );
  const [{ id: campaignId }] = await early.query(
    `INSERT INTO campaign (account_id, name) VALUES ($1, 'chart bench') RETURNING id`,
    [accountId],
  );
  const [{ id: endpointId }] = await early.query(
    `INSERT INTO webhook_endpoint (campaign_id, url, subscribed_events, secret_encrypted)
     VALUES ($1, 'https://hooks.example.com/bench', '{lead.created}', 'x') RETURNING id`,
    [campaignId],
  );
  if (attempts > 0) {
    const started = performance.now();
    for (let done = 0; done < attempts; done += CHUNK) {
      const n = Math.min(CHUNK, attempts - done);
      // Spread over the last 30 days; 90 % 2xx, the rest 500s, timeouts and refusals.
      await early.query(
        `INSERT INTO webhook_delivery_attempt
                (endpoint_id, message_id, event_type, attempted_at, finished_at, duration_ms, status_code, success, error)
         SELECT $1, 'bench_' || g, 'lead.created', t, t, d,
                CASE WHEN r < 0.9 THEN 204 WHEN r < 0.96 THEN 500 ELSE NULL END,
                r < 0.9,
                CASE WHEN r < 0.9 THEN NULL WHEN r < 0.96 THEN 'HTTP 500'
                     WHEN r < 0.98 THEN 'timed out after 10000 ms' ELSE 'connection refused' END
           FROM (SELECT g, now() - random() * interval '30 days' AS t, random() AS r,
                        round((5 + random() * random() * 400)::numeric, 3)::float8 AS d
                   FROM generate_series($2::bigint, $3::bigint) AS g) AS s`,
        [endpointId, done + 1, done + n],
      );
      log(
        `${(done + n).toLocaleString('en')} of ${attempts.toLocaleString('en')} attempts inserted`,
      );
    }
    log(`inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const migrating = performance.now();
    await early.destroy();
    const rest = new DataSource({
      ...buildDataSourceOptions(urlOf(name), 2, []),
      migrations: MIGRATIONS,
    });
    await rest.initialize();
    await rest.runMigrations({ transaction: 'each' });
    const backfillSeconds = (performance.now() - migrating) / 1000;
    log(
      `rollup migration (backfill of ${attempts.toLocaleString('en')} attempts): ${backfillSeconds.toFixed(1)} s`,
    );
    await rest.query('VACUUM (ANALYZE) endpoint_delivery_rollup');
    await rest.destroy();
    return { endpointId, backfillSeconds };
  }
  await early.query('VACUUM (ANALYZE) endpoint_delivery_rollup');
  await early.destroy();
  return { endpointId, backfillSeconds: null };
}

/** A stats service on one of the databases, and what it charts. */
async function open(name, endpointId) {
  const dataSource = new DataSource(buildDataSourceOptions(urlOf(name), 2, ENTITIES));
  await dataSource.initialize();
  const stats = new DeliveryStatsService(new DeliveryRollupRepository(dataSource));
  const [{ n }] = await dataSource.query(
    'SELECT count(*)::bigint AS n FROM webhook_delivery_attempt WHERE endpoint_id = $1',
    [endpointId],
  );
  return { dataSource, read: () => stats.of([endpointId], '30d'), attempts: Number(n) };
}

/**
 * Median ms of the 30-day stats read on each database. All are warmed up first (so the first
 * one measured does not pay for the JIT), then read in turn, one read each per round, so a
 * change in the machine's load falls on all of them alike.
 */
async function measure(databases) {
  const opened = [];
  for (const { name, endpointId } of databases) opened.push(await open(name, endpointId));
  for (const db of opened) for (let i = 0; i < WARMUP; i++) await db.read();
  const times = opened.map(() => []);
  const last = [];
  for (let run = 0; run < RUNS; run++) {
    for (let k = 0; k < opened.length; k++) {
      const i = (run + k) % opened.length;
      const started = performance.now();
      last[i] = await opened[i].read();
      times[i].push(performance.now() - started);
    }
  }
  for (const db of opened) await db.dataSource.destroy();
  return opened.map((db, i) => ({
    median_ms: median(times[i]),
    attempts_recorded: db.attempts,
    charted: last[i].totals.attempts,
  }));
}

const SMALL = Math.min(100_000, ATTEMPTS);
const empty = await prepare('campaign_api_bench_chart_0', 0);
const small = await prepare('campaign_api_bench_chart_s', SMALL);
const full = await prepare('campaign_api_bench_chart_n', ATTEMPTS);
const [atZero, atSmall, atN] = await measure([
  { name: 'campaign_api_bench_chart_0', endpointId: empty.endpointId },
  { name: 'campaign_api_bench_chart_s', endpointId: small.endpointId },
  { name: 'campaign_api_bench_chart_n', endpointId: full.endpointId },
]);
log(`0 attempts: median ${atZero.median_ms.toFixed(3)} ms`);
log(`${SMALL.toLocaleString('en')} attempts: median ${atSmall.median_ms.toFixed(3)} ms`);
log(`${ATTEMPTS.toLocaleString('en')} attempts: median ${atN.median_ms.toFixed(3)} ms`);
console.log(
  JSON.stringify(
    {
      runs: RUNS,
      warmup: WARMUP,
      zero: atZero,
      small: { ...atSmall, backfill_seconds: small.backfillSeconds },
      full: { ...atN, backfill_seconds: full.backfillSeconds },
      ratio_to_zero: atN.median_ms / atZero.median_ms,
      ratio_to_small: atN.median_ms / atSmall.median_ms,
    },
    null,
    2,
  ),
);
