#!/usr/bin/env node
// The 30-day chart query at 0, at 100,000 and at N recorded attempts (default 10,000,000): what the
// dashboard's `GET /endpoints/{id}/stats?window=30d` runs (`DeliveryStatsService.of`, the
// rollup read and the aggregation), timed as the median of several runs on a database with no
// attempts and on one with N attempts spread over the last 30 days. The N attempts are
// inserted with SQL before the rollup migration, which then fills the rollups from them (its
// time is printed too). Reads only rollups, so the two medians should be the same.
//
//   npm run build && node bench/chart-query.mjs [--attempts N] [--runs R]
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
const { DeliveryRollupRepository } = require('../dist/delivery/delivery-rollup.repository.js');
const { DeliveryStatsService } = require('../dist/delivery/delivery-stats.js');

const { values } = parseArgs({
  options: {
    attempts: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '25' },
  },
});
const ATTEMPTS = Number(values.attempts);
const RUNS = Number(values.runs);
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

/** A migrated database (all migrations, or all but the rollups' when `attempts` come first). */
async function prepare(name, attempts) {
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

/** Median ms of the 30-day stats read, after a few warm-up reads. */
async function measure(name, endpointId) {
  const dataSource = new DataSource(buildDataSourceOptions(urlOf(name), 2, ENTITIES));
  await dataSource.initialize();
  const stats = new DeliveryStatsService(new DeliveryRollupRepository(dataSource));
  for (let i = 0; i < 5; i++) await stats.of([endpointId], '30d');
  const times = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    last = await stats.of([endpointId], '30d');
    times.push(performance.now() - started);
  }
  const [{ n }] = await dataSource.query(
    'SELECT count(*)::bigint AS n FROM webhook_delivery_attempt WHERE endpoint_id = $1',
    [endpointId],
  );
  await dataSource.destroy();
  return { median_ms: median(times), attempts_recorded: Number(n), charted: last.totals.attempts };
}

const empty = await prepare('campaign_api_bench_chart_0', 0);
const atZero = await measure('campaign_api_bench_chart_0', empty.endpointId);
log(`0 attempts: median ${atZero.median_ms.toFixed(3)} ms`);
const SMALL = Math.min(100_000, ATTEMPTS);
const small = await prepare('campaign_api_bench_chart_s', SMALL);
const atSmall = await measure('campaign_api_bench_chart_s', small.endpointId);
log(`${SMALL.toLocaleString('en')} attempts: median ${atSmall.median_ms.toFixed(3)} ms`);
const full = await prepare('campaign_api_bench_chart_n', ATTEMPTS);
const atN = await measure('campaign_api_bench_chart_n', full.endpointId);
log(`${ATTEMPTS.toLocaleString('en')} attempts: median ${atN.median_ms.toFixed(3)} ms`);
console.log(
  JSON.stringify(
    {
      runs: RUNS,
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
