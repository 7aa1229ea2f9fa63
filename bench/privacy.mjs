#!/usr/bin/env node
// What erasure and the suppression list cost, printed (never asserted; docs/privacy.md):
//
// 1. A 10,000-lead upload (--upload) to an account whose suppression list holds --entries
//    keyed hashes (default 1,000,000), side by side with the same upload to an account with an
//    empty list; --rounds rounds, the order alternating; request-to-202 medians and their ratio
//    (the goal: at most 1.05).
// 2. Erasing one person among --leads leads (default 1,000,000) with one `lead.created` event
//    and one delivery each, and --attempts attempts (default 10,000,000) on those deliveries;
//    --erasures erasures of random people through POST /api/v1/erasure-requests, each timed
//    request to 201 (the goal: under 1 s). The rows are made with SQL generate_series, not the
//    API.
// 3. Another account's 100-lead uploads, one after another: their p99 alone, then while --burst
//    erasures (default 10,000) run in a row on the big account (the goal: within 1.2 times).
//
//   npm run build && node bench/privacy.mjs [--entries 1000000] [--upload 10000] [--rounds 7]
//                                           [--leads 1000000] [--attempts 10000000] [--erasures 5]
//                                           [--burst 10000]
//
// Starts `node dist/main.js` without its delivery worker (RUN_WORKER=false) on a fresh database
// of its own (BENCH_DATABASE, default campaign_api_bench_privacy) with a unique QUEUE_PREFIX;
// BENCH_NODE_ARGS (e.g. `--cpu-prof`) are passed to it.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { accessToken, benchEnv, cliOf, dropBenchDatabase, startApi } from './lib/service.mjs';
import { makeLeads } from './lib/leads.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '1000000' },
    upload: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '7' },
    leads: { type: 'string', default: '1000000' },
    attempts: { type: 'string', default: '10000000' },
    erasures: { type: 'string', default: '5' },
    burst: { type: 'string', default: '10000' },
  },
});
const ENTRIES = Number(values.entries);
const UPLOAD = Number(values.upload);
const ROUNDS = Number(values.rounds);
const LEADS = Number(values.leads);
const ATTEMPTS = Number(values.attempts);
const ERASURES = Number(values.erasures);
const BURST = Math.min(Number(values.burst), LEADS - ERASURES);
const DB = process.env.BENCH_DATABASE ?? 'campaign_api_bench_privacy';
const PREFIX = `bench-privacy-${Date.now()}`;
const env = { ...benchEnv(process.env, DB, PREFIX), RUN_WORKER: 'false' };
await dropBenchDatabase(pg, DB);

const { api, base } = await startApi(
  root,
  env,
  (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
);
const cli = cliOf(root, env);
const db = new pg.Client({ connectionString: env.DATABASE_URL });
await db.connect();

function account(name) {
  const created = cli('account', 'create', '--name', name);
  const campaign = cli('campaign', 'create', '--account', String(created.id), '--name', name);
  const { api_key } = cli('api-key', 'create', '--account', String(created.id));
  return { id: created.id, campaignId: campaign.id, apiKey: api_key };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(0)} ms`;

// 1. The upload's suppression check.
const listed = account('Bench listed');
const unlisted = account('Bench unlisted');
let started = performance.now();
await db.query(
  `INSERT INTO suppression_entry (account_id, hash, kind, key_id, fingerprint, list_version)
   SELECT $1, sha256(('bench-' || i)::bytea), CASE WHEN i % 2 = 0 THEN 'phone' ELSE 'email' END, 1,
          ('x' || substr(md5('bench-' || i), 1, 8))::bit(32)::int, 1
     FROM generate_series(1, $2::int) AS i`,
  [listed.id, ENTRIES],
);
// Fingerprints spread like real ones (uniform 32-bit); the list's version is 1.
await db.query('INSERT INTO suppression_list (account_id, version) VALUES ($1, 1)', [listed.id]);
// Vacuumed and checkpointed here, so autovacuum and the checkpoint of a million fresh rows do not
// run during the rounds.
await db.query('VACUUM (ANALYZE) suppression_entry');
await db.query('CHECKPOINT');
console.log(`suppression list: ${ENTRIES} entries made in ${ms(performance.now() - started)}`);
const tokens = {
  listed: await accessToken(base, listed.apiKey),
  unlisted: await accessToken(base, unlisted.apiKey),
};

async function upload(which) {
  const target = which === 'listed' ? listed : unlisted;
  const body = JSON.stringify({
    campaign_id: target.campaignId,
    compliance_acknowledged: true,
    source: 'bench',
    tags: ['bench'],
    leads: makeLeads(UPLOAD),
  });
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/leads/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[which]}` },
    body,
  });
  const answer = await res.json();
  const took = performance.now() - t0;
  if (res.status !== 202 || answer.valid_count !== UPLOAD)
    throw new Error(`upload answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return took;
}

// The service reads the list's filter in the background after the first check.
await upload('listed');
await upload('unlisted');
await new Promise((resolve) => setTimeout(resolve, 5_000));
await upload('listed');
await upload('unlisted');
const times = { listed: [], unlisted: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const which of round % 2 === 0 ? ['unlisted', 'listed'] : ['listed', 'unlisted']) {
    times[which].push(await upload(which));
  }
}
const [without, withList] = [median(times.unlisted), median(times.listed)];
console.log(
  `upload of ${UPLOAD} leads, median of ${ROUNDS}: ${ms(without)} with an empty list, ` +
    `${ms(withList)} with ${ENTRIES} entries: ratio ${(withList / without).toFixed(3)} (goal ≤ 1.05)`,
);

// 2. One erasure among LEADS leads and ATTEMPTS attempts.
const big = account('Bench erasure');
const endpoint = cli(
  'endpoint',
  'create',
  '--campaign',
  String(big.campaignId),
  '--url',
  'http://127.0.0.1:9/never-sent',
  '--events',
  'lead.created',
);
started = performance.now();
const importId = '00000000-0000-4000-8000-00000000b16b';
await db.query(
  `INSERT INTO lead_import (id, campaign_id, api_key_id, source, tags, disclaimer_version,
                            compliance_acknowledged_at, received_count, valid_count, invalid_count, duplicate_count)
   SELECT $1, $2, (SELECT id FROM api_key WHERE account_id = $3 LIMIT 1), 'bench', '{}', 'v1', now(), $4, $4, 0, 0`,
  [importId, big.campaignId, big.id, LEADS],
);
await db.query(
  `INSERT INTO lead (campaign_id, import_id, source, phone, email, first_name)
   SELECT $1, $2, 'bench', '+1646' || (2000000 + i), 'person' || i || '@bench.example', 'P' || i
     FROM generate_series(1, $3::int) AS i`,
  [big.campaignId, importId, LEADS],
);
await db.query(
  `INSERT INTO webhook_event (id, campaign_id, type, body, lead_id, created_at)
   SELECT gen_random_uuid(), l.campaign_id, 'lead.created',
          json_build_object('type', 'lead.created', 'timestamp', now(),
                            'data', json_build_object('id', l.id, 'phone', l.phone, 'email', l.email))::text,
          l.id, now()
     FROM lead l WHERE l.campaign_id = $1`,
  [big.campaignId],
);
await db.query(
  `INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, lead_id)
   SELECT e.id, $2, 'failed', 1, e.lead_id FROM webhook_event e WHERE e.campaign_id = $1`,
  [big.campaignId, endpoint.id],
);
const perDelivery = Math.max(1, Math.round(ATTEMPTS / LEADS));
await db.query(
  `INSERT INTO webhook_delivery_attempt (endpoint_id, delivery_id, message_id, event_type, attempted_at,
                                         finished_at, duration_ms, success, status_code, request_url,
                                         request_body, response_excerpt, attempt_number, delivery_created_at)
   SELECT $1, d.id, 'msg_' || d.id, 'lead.created', now(), now(), 12, false, 500,
          'http://127.0.0.1:9/never-sent', e.body, 'busy', n, date_trunc('milliseconds', d.created_at)
     FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id,
          generate_series(1, $2::int) AS n
    WHERE d.endpoint_id = $1`,
  [endpoint.id, perDelivery],
);
await db.query('ANALYZE');
const [{ attempts }] = (
  await db.query('SELECT count(*)::int AS attempts FROM webhook_delivery_attempt')
).rows;
console.log(
  `erasure data: ${LEADS} leads, events and deliveries, ${attempts} attempts, made in ` +
    `${ms(performance.now() - started)}`,
);

const bigToken = await accessToken(base, big.apiKey);
const erased = [];
for (let i = 0; i < ERASURES; i++) {
  const n = 1 + Math.floor(Math.random() * LEADS);
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/erasure-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bigToken}` },
    body: JSON.stringify({ phone: `+1646${2000000 + n}`, email: `person${n}@bench.example` }),
  });
  const receipt = await res.json();
  const took = performance.now() - t0;
  if (res.status !== 201 || receipt.counts.leads !== 1)
    throw new Error(`erasure answered ${res.status}: ${JSON.stringify(receipt).slice(0, 300)}`);
  erased.push(took);
  console.log(`  erasure ${i + 1}: ${ms(took)} ${JSON.stringify(receipt.counts)}`);
}
console.log(
  `erasure of one person among ${LEADS} leads and ${attempts} attempts: median ${ms(median(erased))}, ` +
    `worst ${ms(Math.max(...erased))} (goal < 1 s); load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);

// 3. Another account's uploads beside a burst of erasures.
if (BURST > 0) {
  const other = account('Bench other');
  tokens.other = await accessToken(base, other.apiKey);
  const small = async () => {
    const body = JSON.stringify({
      campaign_id: other.campaignId,
      compliance_acknowledged: true,
      leads: makeLeads(100),
    });
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/leads/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.other}` },
      body,
    });
    await res.json();
    if (res.status !== 202) throw new Error(`upload answered ${res.status}`);
    return performance.now() - t0;
  };
  const p99 = (xs) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)];
  const beside = [];
  let done = false;
  const uploads = (async () => {
    while (!done) beside.push(await small());
  })();
  const burstStarted = performance.now();
  // People not erased above: the erased ones are the first ERASURES random draws; these go in order.
  let erasedInBurst = 0;
  for (let n = LEADS; n > LEADS - BURST; n--) {
    const res = await fetch(`${base}/api/v1/erasure-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bigToken}` },
      body: JSON.stringify({ phone: `+1646${2000000 + n}`, add_to_suppression_list: false }),
    });
    await res.json();
    if (res.status !== 201) throw new Error(`erasure answered ${res.status}`);
    erasedInBurst++;
  }
  const burstMs = performance.now() - burstStarted;
  done = true;
  await uploads;
  const alone = [];
  for (let i = 0; i < beside.length; i++) alone.push(await small());
  console.log(
    `${erasedInBurst} erasures in a row in ${ms(burstMs)} (${(burstMs / erasedInBurst).toFixed(1)} ms each); ` +
      `another account's ${beside.length} uploads of 100 leads: p99 ${ms(p99(alone))} alone, ` +
      `${ms(p99(beside))} beside the erasures: ratio ${(p99(beside) / p99(alone)).toFixed(2)} (goal ≤ 1.2)`,
  );
}

await db.end();
api.kill('SIGTERM');
