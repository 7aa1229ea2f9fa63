#!/usr/bin/env node
// What payload filters cost an upload, printed (never asserted): a 10,000-lead upload to a
// campaign with five endpoints carrying filters, side by side in one run with the same upload
// to a campaign with five endpoints without filters (docs/webhooks.md#payload-filters; the
// issue's goal: at most 1.1 times the time).
//
//   npm run build && node bench/payload-filters.mjs [--leads 10000] [--rounds 7]
//
// Starts `node dist/main.js` without its delivery worker (RUN_WORKER=false: the upload's own
// work is measured, not the sending that follows it) on a fresh database of its own
// (BENCH_DATABASE, default campaign_api_bench_filters) with a unique QUEUE_PREFIX. Two
// campaigns, each with five endpoints subscribed to `lead.created` at one URL: "plain" without
// filters, "filtered" with five realistic filters (equality, `in`, a string function, an RE2
// `matches`, integer comparisons) that every lead matches, so both write the same 50,000
// deliveries and the difference is the filters' evaluation alone. After one warm-up upload to
// each, --rounds rounds upload --leads new leads to each, the order alternating per round;
// each upload's time (request to 202) is taken, and the medians and their ratio printed with
// the machine's load average. It also times the evaluations alone, in this process, with the
// service's own compiled filters (dist/webhooks/payload-filter.js): the five filters on each
// of --leads lead.created events, as the publisher runs them.
import os from 'node:os';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import Redis from 'ioredis';
import pg from 'pg';
import { accessToken, benchEnv, cliOf, dropBenchDatabase, startApi } from './lib/service.mjs';
import { makeLeads } from './lib/leads.mjs';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '7' },
  },
});
const LEADS = Number(values.leads);
const ROUNDS = Number(values.rounds);
const DB = process.env.BENCH_DATABASE ?? 'campaign_api_bench_filters';
const PREFIX = `bench-filters-${Date.now()}`;
const env = { ...benchEnv(process.env, DB, PREFIX), RUN_WORKER: 'false' };
await dropBenchDatabase(pg, DB);

/** Five filters every bench lead matches (its source is "bench", its tags ["bench"]). */
const FILTERS = [
  'type == "lead.created" && data.source == "bench"',
  '"bench" in data.tags && size(data.tags) < 10',
  'data.phone.startsWith("+1212") && !data.title.contains("Intern")',
  'data.phone.matches("^\\\\+1[0-9]{10}$")',
  'data.id > 0 && data.campaign_id > 0',
];
const URL_ = 'http://127.0.0.1:9/never-sent';

const { api, base } = await startApi(root, env);
const cli = cliOf(root, env);
const account = cli('account', 'create', '--name', 'Bench filters');
const { api_key } = cli('api-key', 'create', '--account', String(account.id));
const token = await accessToken(base, api_key);

function campaignWith(name, filters) {
  const campaign = cli('campaign', 'create', '--account', String(account.id), '--name', name);
  for (const filter of filters) {
    cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      URL_,
      '--events',
      'lead.created',
      ...(filter === null ? [] : ['--filter', filter]),
    );
  }
  return campaign.id;
}

const plain = campaignWith('Plain', [null, null, null, null, null]);
const filtered = campaignWith('Filtered', FILTERS);

/** Uploads `count` new leads to `campaignId`; the time from request to 202, in ms. */
async function upload(campaignId, count) {
  const body = JSON.stringify({
    campaign_id: campaignId,
    compliance_acknowledged: true,
    source: 'bench',
    tags: ['bench'],
    leads: makeLeads(count),
  });
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/leads/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  const answer = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 202 || answer.valid_count !== count)
    throw new Error(`upload answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Warm-up: one upload to each.
await upload(plain, LEADS);
await upload(filtered, LEADS);

const times = { plain: [], filtered: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['plain', 'filtered'] : ['filtered', 'plain'];
  for (const which of order) {
    times[which].push(await upload(which === 'plain' ? plain : filtered, LEADS));
  }
}

// Every lead matched every filter: both campaigns wrote the same deliveries.
const db = new pg.Client({ connectionString: env.DATABASE_URL });
await db.connect();
const { rows } = await db.query(
  `SELECT e.campaign_id, count(*)::int AS deliveries FROM webhook_delivery d
     JOIN webhook_endpoint e ON e.id = d.endpoint_id GROUP BY 1 ORDER BY 1`,
);
const { rows: filteredRows } = await db.query(
  'SELECT coalesce(sum(filtered), 0)::int AS filtered FROM endpoint_filtered_day',
);
await db.end();

// The evaluations alone: 5 filters × LEADS events, 5 passes, the best and the median.
const { compileFilter } = createRequire(import.meta.url)(
  join(root, 'dist/webhooks/payload-filter.js'),
);
const compiled = FILTERS.map((f) => compileFilter(f));
const events = makeLeads(LEADS).map((lead, i) => ({
  id: i + 1,
  campaign_id: 1,
  ...lead,
  tags: ['bench'],
  source: 'bench',
  import_id: '00000000-0000-4000-8000-000000000000',
  created_at: new Date().toISOString(),
}));
const timestamp = new Date().toISOString();
const passes = [];
for (let pass = 0; pass < 5; pass++) {
  const started = performance.now();
  let matched = 0;
  for (const data of events) {
    for (const filter of compiled)
      if (filter.evaluate('lead.created', timestamp, data).match) matched++;
  }
  passes.push(performance.now() - started);
  if (matched !== events.length * compiled.length) throw new Error(`only ${matched} matched`);
}

const round1 = (x) => +x.toFixed(1);
console.log(
  JSON.stringify(
    {
      leads_per_upload: LEADS,
      endpoints_per_campaign: 5,
      rounds: ROUNDS,
      cpus: os.cpus().length,
      load_average_1m: +os.loadavg()[0].toFixed(2),
      upload_ms: {
        without_filters: { median: round1(median(times.plain)), all: times.plain.map(round1) },
        with_filters: { median: round1(median(times.filtered)), all: times.filtered.map(round1) },
      },
      ratio_with_to_without: +(median(times.filtered) / median(times.plain)).toFixed(3),
      evaluations_alone: {
        evaluations: events.length * compiled.length,
        ms_best: round1(Math.min(...passes)),
        ms_median: round1(median(passes)),
      },
      deliveries_by_campaign: Object.fromEntries(rows.map((r) => [r.campaign_id, r.deliveries])),
      events_filtered_out: filteredRows[0].filtered,
    },
    null,
    2,
  ),
);

api.kill('SIGTERM');
await once(api, 'exit');
// The deliveries were queued for a worker that never ran: remove this run's keys.
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
