#!/usr/bin/env node
/**
 * Campaign API benchmark: prints figures, never pass/fail (exit 0 unless the harness itself
 * breaks). Each figure stands beside a ceiling measured in the same run on the same machine
 * (or beside a stated goal), as ratio = ours / ceiling.
 *
 *   npm run build && node bench/run.mjs [--quick]
 *
 * What it does:
 *   1. Drops and recreates the database `campaign_api_bench`, starts `node dist/main.js` (API +
 *      delivery worker) on it on a free port with a unique QUEUE_PREFIX (`bench-<timestamp>`),
 *      a webhook receiver child (bench/lib/receiver.mjs) and creates an account, campaigns, an
 *      API key and webhook endpoints with `node dist/cli.js`.
 *   2. Measures:
 *      - memory:   peak RSS of the API process during one N-lead upload over its idle RSS
 *                  (VmRSS from /proc/<pid>/status every 5 ms).
 *      - ingest:   leads/s of `POST /api/v1/leads/upload` with N-lead requests (median over runs,
 *                  a fresh campaign without webhook endpoints each), against PostgreSQL's raw
 *                  `COPY ... FROM STDIN (FORMAT csv)` of the same rows into a fresh table shaped
 *                  like `lead` (same unique index on (campaign_id, phone)), and against the
 *                  naive peer: one INSERT per lead, sequential awaits, in one transaction.
 *      - latency:  upload 202 → first delivery at the receiver, p50/p99 over single-lead uploads,
 *                  against the goals (p50 ≤ 20 ms, p99 ≤ 100 ms).
 *      - dispatch: deliveries/s of one N-lead upload to a campaign with one endpoint subscribed to
 *                  lead.created (202 → N-th delivery at the receiver), against raw undici POSTs of
 *                  a real delivered body to the same receiver at concurrency 50.
 *      - reads:    `GET /webhooks/{cid}/endpoints/{eid}/health` req/s and p50/p99 at 50
 *                  connections (autocannon, after a warm-up), against a bare Fastify server
 *                  (bench/lib/fastify-ceiling.mjs) answering a JSON object of the same size.
 *      - token:    `POST /auth/api-key/token` exchanges/s at 50 connections, against the goal
 *                  3,000/s (no ceiling is measured for it).
 *      - scale:    health p50/p99 at 10 connections on an endpoint with 0 recorded attempts vs
 *                  one with 1,000,000 attempts inserted with SQL (flat ≈ 1).
 *   3. Prints one table (measure, ours, ceiling, ratio, goal, met?) and writes it with machine
 *      information and the raw figures to bench/results/<timestamp>.json, latest.json and
 *      latest.md. A --quick run writes <timestamp>-quick.json, latest-quick.json and
 *      latest-quick.md instead, so it never overwrites the figures of a full run.
 *
 * --quick (CI): the same steps with small sizes (500-lead uploads ×2, 1-second load runs,
 * 10 latency uploads, 10,000 attempts); it proves the harness works and says nothing about
 * speed. Latencies are taken on process.hrtime (CLOCK_MONOTONIC, shared by every process of the
 * machine), so times noted by the receiver child compare with the harness's own.
 *
 * All traffic goes to 127.0.0.1. Every child process is stopped on exit, error or signal.
 */
import { execFile, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import Redis from 'ioredis';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { Agent, request } from 'undici';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    guard: { type: 'boolean', default: false },
  },
});
const QUICK = args.quick;
/** The steps to run; `--only ingest,reads` runs just those and prints their raw figures. */
const STEPS = [
  'memory',
  'ingest',
  'latency',
  'dispatch',
  'reads',
  'token',
  'scale',
  'scaleout',
  'observability',
];
const ONLY = args.only ? new Set(args.only.split(',')) : null;
for (const step of ONLY ?? []) {
  if (!STEPS.includes(step)) throw new Error(`--only: unknown step ${step}; use ${STEPS}`);
}
const runs = (step) => ONLY === null || ONLY.has(step);

/** Sizes of every step; --quick shrinks them all. */
const SIZES = QUICK
  ? {
      warmupLeads: 1_000, // through the validation worker threads too (from 1,000 leads)
      rssLeads: 500,
      // Large enough that the per-lead work, not the request's fixed cost, sets --guard's ratio.
      ingestLeads: 2_000,
      ingestRuns: 5, // a median of five: COPY's own speed swings by a third from run to run
      ingestWarmups: 1,
      latencyUploads: 10,
      dispatchLeads: 500,
      dispatchTimeoutMs: 30_000,
      // Long enough for the JIT to settle, so --guard's ratios are not a cold start's.
      loadWarmupSeconds: 1,
      readSeconds: 2,
      tokenSeconds: 2,
      scaleSeconds: 1,
      attempts: 10_000,
    }
  : {
      warmupLeads: 1_000,
      rssLeads: 10_000,
      ingestLeads: 10_000,
      ingestRuns: 5,
      // Uploads (and COPYs) of the same size before the measured ones, discarded: the service
      // (its JIT, the validation threads) takes about three to reach its steady speed.
      ingestWarmups: 3,
      latencyUploads: 50,
      dispatchLeads: 10_000,
      dispatchTimeoutMs: 180_000,
      loadWarmupSeconds: 2,
      readSeconds: 8,
      tokenSeconds: 8,
      scaleSeconds: 4,
      attempts: 1_000_000,
    };
const READ_CONNECTIONS = 50;
const SCALE_CONNECTIONS = 10;
const CEILING_CONCURRENCY = 50;
/**
 * The goals (higher is better for each): ratios of ours to the ceiling measured in the same
 * run. `--guard` (CI) exits 1 when a ratio falls below half of its goal: loose enough for a
 * noisy shared machine, tight enough to catch a 10× regression. Absolute goals (token exchanges
 * per second, p99 and delivery latency) are reported but not guarded: they measure the machine
 * as much as the code. The token exchange is guarded instead as a share of our own health
 * reads/s, measured just before in the same process: 0.31-0.91 in seven runs on two machines 7×
 * apart (bare Fastify, the other ceiling, swung from 12,347 to 48,019 req/s on this one, so a
 * share of it did not hold still).
 */
const GOALS = { ingest: 0.25, health: 0.2, events: 0.3, dispatch: 0.3, token: 0.25 };
const TOKEN_GOAL_PER_S = 6_000;
const HEALTH_P99_GOAL_MS = 10;
const LATENCY_GOALS_MS = { p50: 20, p99: 100 };
const SCALE_FLAT_MAX = 1.5; // what "flat ≈ 1" is taken to mean for the met? column

// BENCH_DATABASE: another name, so that two runs on one machine do not drop each other's database.
const DB = process.env.BENCH_DATABASE ?? 'campaign_api_bench';
const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DB}`;
const QUEUE_PREFIX = `bench-${Date.now()}`;
const env = {
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL,
  QUEUE_PREFIX,
  // As a busy production deployment would log: info, with the "request completed" line of 1 %
  // of ordinary requests (failed and slow ones are always logged).
  LOG_LEVEL: 'info',
  LOG_REQUEST_SAMPLE_RATE: '0.01',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  RATE_LIMIT_TOKEN_PER_MIN: '1000000',
  RATE_LIMIT_API_PER_MIN: '1000000',
  // The scale-out step starts a second API process (with its worker) on the same port.
  HTTP_REUSE_PORT: 'true',
};

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Milliseconds on CLOCK_MONOTONIC (comparable across the processes of this machine). */
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message) => process.stderr.write(`bench: ${message}\n`);

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
const ratioOf = (a, b) => (a == null || b == null || b === 0 ? null : a / b);

/** Runs fn over items with at most `limit` at once; results in item order. */
async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Anything odd seen during the run (non-2xx, timeouts, log warnings): printed and saved. */
const notes = [];
const note = (message) => {
  notes.push(message);
  log(`note: ${message}`);
};

// ---------------------------------------------------------------------------------------------
// Child processes: tracked, and all stopped whatever happens
// ---------------------------------------------------------------------------------------------

const children = new Set();
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
const running = (child) => child.exitCode === null && child.signalCode === null;

/** Sends `signal`, waits up to timeoutMs for the exit, then SIGKILL. Returns how it ended. */
async function stopChild(child, signal = 'SIGTERM', timeoutMs = 35_000) {
  if (running(child)) {
    const exited = once(child, 'exit');
    child.kill(signal);
    const timer = sleep(timeoutMs).then(() => 'timeout');
    if ((await Promise.race([exited, timer])) === 'timeout') {
      note(`child ${child.pid} still running ${timeoutMs} ms after ${signal}: killed`);
      child.kill('SIGKILL');
      await exited;
    }
  }
  return { code: child.exitCode, signal: child.signalCode };
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping child processes`);
    process.exit(130);
  });
}

/** Forks an IPC child and waits for its { type: 'ready', port } message. */
async function forkReady(file, extraEnv = {}) {
  const child = track(
    fork(join(here, file), [], {
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const ready = new Promise((resolve, reject) => {
    child.once('message', (m) => (m?.type === 'ready' ? resolve(m.port) : reject(new Error(m))));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before ready`)));
  });
  const port = await Promise.race([
    ready,
    sleep(15_000).then(() => {
      throw new Error(`${file} not ready within 15 s`);
    }),
  ]);
  return { child, port };
}

/** Request/answer over an IPC channel, matched by id. */
let nextMessageId = 1;
function ask(child, message, timeoutMs = 10_000) {
  const id = nextMessageId++;
  return new Promise((resolve, reject) => {
    const onMessage = (answer) => {
      if (answer?.id !== id) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(answer);
    };
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`no answer to ${message.cmd} within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.send({ ...message, id });
  });
}

// ---------------------------------------------------------------------------------------------
// The service: API process, CLI, HTTP calls
// ---------------------------------------------------------------------------------------------

const apiLog = { lines: [], total: 0, byLevel: {} }; // what the API printed besides "listening"
// Info lines, the two development-secret warnings, and the start banner (src/start-banner.ts).
const EXPECTED_API_LOG =
  /^(info: |warn: (JWT_SECRET|SECRETS_ENCRYPTION_KEY) is not set: using a fixed development|stderr: (Campaign API is ready| {2}(API|Dashboard|API docs) {2,}http|$))/;
function keepApiLine(line, stream) {
  if (!line.trim()) return;
  apiLog.total++;
  let level = stream;
  let msg = line;
  try {
    const parsed = JSON.parse(line);
    level =
      { 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }[parsed.level] ?? String(parsed.level);
    msg = parsed.msg ?? line;
  } catch {
    // not JSON: keep the raw line
  }
  apiLog.byLevel[level] = (apiLog.byLevel[level] ?? 0) + 1;
  if (apiLog.lines.length < 200) apiLog.lines.push(`${level}: ${String(msg).slice(0, 300)}`);
}

const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * Starts `node dist/main.js` on PORT=0 (or `port`: a second process sharing the first one's
 * port, HTTP_REUSE_PORT), with `extraEnv` over the bench's environment, and returns it with its
 * base URL.
 */
async function startApi(port = 0, extraEnv = {}) {
  const api = track(
    // BENCH_NODE_ARGS: extra node flags for the API, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
    spawn(process.execPath, [...nodeArgs, join(root, 'dist/main.js')], {
      env: { ...env, ...extraEnv, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let base = null;
  let stderrTail = '';
  const onLines = (stream) => {
    let buffered = '';
    return (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        const match = line.match(/listening on (http:\/\/127\.0\.0\.1:(\d+))/);
        if (match && base === null) base = match[1];
        else keepApiLine(line, stream);
        if (stream === 'stderr') stderrTail = (stderrTail + line + '\n').slice(-2000);
      }
    };
  };
  api.stdout.setEncoding('utf8').on('data', onLines('stdout'));
  api.stderr.setEncoding('utf8').on('data', onLines('stderr'));
  const deadline = Date.now() + 60_000;
  while (base === null) {
    if (!running(api)) throw new Error(`the API exited with ${api.exitCode}: ${stderrTail}`);
    if (Date.now() > deadline) throw new Error(`the API did not listen within 60 s: ${stderrTail}`);
    await sleep(50);
  }
  return { api, base };
}

const execFileAsync = promisify(execFile);
/** `node dist/cli.js ...args` against the bench database; its JSON document. */
async function cli(...cliArgs) {
  try {
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(root, 'dist/cli.js'), ...cliArgs],
      {
        env,
        timeout: 60_000,
        maxBuffer: 1 << 20,
      },
    );
    return JSON.parse(stdout);
  } catch (error) {
    throw new Error(`cli ${cliArgs.join(' ')} failed: ${error.stderr || error.message}`);
  }
}

let base; // http://127.0.0.1:PORT of the API
/** One HTTP call to the API. headersAt: when the status line arrived; doneAt: body read. */
async function call(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const startedAt = nowMs();
  const res = await request(`${base}${path}`, {
    method,
    headers,
    body,
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  const headersAt = nowMs();
  const text = await res.body.text();
  return { status: res.statusCode, text, startedAt, headersAt, doneAt: nowMs() };
}

// ---------------------------------------------------------------------------------------------
// Leads: realistic, unique, valid E.164 US phones (+1212 and 7 digits)
// ---------------------------------------------------------------------------------------------

const FIRST = (
  'Alva Benjamin Catherine Dmitri Eleanor Francisco Gabriela Harrison Isabella Jonathan ' +
  'Katherine Leonardo Margaret Nathaniel Olivia Priyanka Quentin Rosalind Sebastian Theodore'
).split(' ');
const LAST = (
  'Treutel Abernathy Castellanos Donnelly Fitzgerald Gutierrez Hoffmann Kowalski Lindqvist ' +
  'McAllister Nakamura Okonkwo Pemberton Ramirez Schneider Thompson Vanderbilt Whitfield ' +
  'Yamamoto Zimmerman'
).split(' ');
const COMPANY_SUFFIX = (
  'Group|and Sons|Holdings LLC|Realty Partners|Logistics Inc|Consulting|Home Services|' +
  'Capital Management'
).split('|');
const TITLES = (
  'Corporate Operations Representative|Senior Account Executive|Regional Marketing Manager|' +
  'Director of Business Development|Chief Financial Officer|Customer Success Specialist|' +
  'Lead Product Designer|Principal Software Engineer|Human Resources Coordinator|' +
  'Vice President of Sales'
).split('|');

let phoneCounter = 2_000_000; // every phone of the run is distinct: +12122000000, +12122000001, ...
function makeLeads(count) {
  return Array.from({ length: count }, () => {
    const n = phoneCounter++;
    const first = FIRST[n % FIRST.length];
    const last = LAST[Math.floor(n / 7) % LAST.length];
    const companyLast = LAST[Math.floor(n / 3) % LAST.length];
    const company = `${companyLast} ${COMPANY_SUFFIX[n % COMPANY_SUFFIX.length]}`;
    const domain = `${companyLast.toLowerCase()}-${company.length}.com`;
    return {
      phone: `+1212${n}`,
      first_name: first,
      last_name: last,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${n % 1000}@${domain}`,
      company,
      title: TITLES[Math.floor(n / 11) % TITLES.length],
    };
  });
}
const uploadBody = (campaignId, leads) =>
  JSON.stringify({
    campaign_id: campaignId,
    compliance_acknowledged: true,
    source: 'bench',
    leads,
  });

// ---------------------------------------------------------------------------------------------
// PostgreSQL ceilings: COPY and the naive per-row INSERT, into a fresh table shaped like `lead`
// ---------------------------------------------------------------------------------------------

const LEAD_COLUMNS =
  'campaign_id, phone, first_name, last_name, email, company, title, source, import_id';
const leadLikeTable = (name) => `
  CREATE TABLE ${name} (
    id BIGSERIAL PRIMARY KEY,
    campaign_id integer NOT NULL,
    phone varchar(16) NOT NULL,
    first_name varchar(255),
    last_name varchar(255),
    email varchar(320),
    company varchar(255),
    title varchar(255),
    tags text[] NOT NULL DEFAULT '{}',
    source varchar(100) NOT NULL,
    import_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (campaign_id, phone)
  );
  CREATE INDEX ON ${name} (import_id);
  -- The lead search's indexes (docs/dashboard.md#leads), as on \`lead\`.
  CREATE INDEX ON ${name} (campaign_id, (lower(email)) COLLATE "C", id);
  CREATE INDEX ON ${name} (campaign_id, (lower(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))) COLLATE "C", id);
  CREATE INDEX ON ${name} (campaign_id, (lower(coalesce(last_name, '') || ' ' || coalesce(first_name, ''))) COLLATE "C", id);`;
const leadValues = (lead, campaignId, importId) => [
  campaignId,
  lead.phone,
  lead.first_name,
  lead.last_name,
  lead.email,
  lead.company,
  lead.title,
  'bench',
  importId,
];
const csvField = (value) => `"${String(value).replaceAll('"', '""')}"`;

/** leads/s of COPY FROM STDIN (CSV, rendered before the clock starts) into a fresh table. */
async function copyRate(db, leads, campaignId, tag) {
  const table = `bench_ceiling.copy_${tag}`;
  await db.query(leadLikeTable(table));
  const importId = randomUUID();
  const csv = leads
    .map((lead) => leadValues(lead, campaignId, importId).map(csvField).join(',') + '\n')
    .join('');
  const started = nowMs();
  await pipeline(
    Readable.from([csv]),
    db.query(copyStreams.from(`COPY ${table} (${LEAD_COLUMNS}) FROM STDIN WITH (FORMAT csv)`)),
  );
  const ms = nowMs() - started;
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM ${table}`);
  if (rows[0].n !== leads.length) note(`COPY stored ${rows[0].n} of ${leads.length} rows`);
  await db.query(`DROP TABLE ${table}`);
  return leads.length / (ms / 1000);
}

/** leads/s of one INSERT per lead, awaited one after the other, in one transaction. */
async function naiveRate(db, leads, campaignId, tag) {
  const table = `bench_ceiling.naive_${tag}`;
  await db.query(leadLikeTable(table));
  const importId = randomUUID();
  const insert = `INSERT INTO ${table} (${LEAD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
  const started = nowMs();
  await db.query('BEGIN');
  for (const lead of leads) await db.query(insert, leadValues(lead, campaignId, importId));
  await db.query('COMMIT');
  const ms = nowMs() - started;
  await db.query(`DROP TABLE ${table}`);
  return leads.length / (ms / 1000);
}

// ---------------------------------------------------------------------------------------------
// Load runs (autocannon) and memory sampling
// ---------------------------------------------------------------------------------------------

/**
 * One autocannon run: 2xx req/s and p50/p99 of the 2xx latencies (ms, as floats: collected
 * from each response rather than from autocannon's integer histogram). Non-2xx, errors and
 * timeouts are noted.
 */
async function load(label, { url, method = 'GET', headers = {}, body, connections, seconds }) {
  const latencies = [];
  const instance = autocannon({ url, method, headers, body, connections, duration: seconds });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) {
    note(
      `${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `(status codes ${JSON.stringify(result.statusCodeStats)})`,
    );
  }
  return {
    requests_per_s: result['2xx'] / result.duration,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    connections,
  };
}

/** A warm-up run (discarded), then the measured run. */
async function warmLoad(label, options, seconds, pid = null) {
  await load(`${label} (warm-up)`, { ...options, seconds: SIZES.loadWarmupSeconds });
  const pids = pid === null ? [] : [pid].flat();
  const cpu = () => pids.reduce((sum, p) => sum + cpuMs(p), 0);
  const cpuBefore = cpu();
  const result = await load(label, { ...options, seconds });
  // CPU time the server process(es) spent per answered request: unlike req/s, it barely moves
  // when other work shares the machine, so it compares two versions of the code fairly.
  if (pids.length > 0) result.cpu_us_per_request = ((cpu() - cpuBefore) * 1000) / result.ok;
  return result;
}

/**
 * Starts counting the CPU time of the API process(es), of this run's PostgreSQL backends and of
 * the Redis server (shared with anything else on the machine that uses it).
 * @returns `perItem(n)`: µs of CPU per item since the start, by part (it ends the count);
 *   `close()` ends it without a figure.
 */
async function cpuOfServices(ctx) {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  {
    const backends = async () =>
      (
        await admin.query(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [DB],
        )
      ).rows.map((r) => r.pid);
    const redisPid = Number(
      await new Promise((resolve) =>
        execFile('pidof', ['redis-server'], (error, stdout) =>
          resolve(error ? 0 : stdout.split(' ')[0]),
        ),
      ),
    );
    const apiPids = [ctx.state.api.pid, ctx.state.secondApi?.pid].filter(Boolean);
    const safeCpu = (pid) => {
      try {
        return cpuMs(pid);
      } catch {
        return 0; // the process ended meanwhile
      }
    };
    const start = {
      api: apiPids.map(safeCpu),
      pg: new Map(),
      redis: redisPid ? safeCpu(redisPid) : 0,
    };
    for (const pid of await backends()) start.pg.set(pid, safeCpu(pid));
    return {
      async perItem(n) {
        const api = apiPids.reduce((sum, pid, i) => sum + safeCpu(pid) - start.api[i], 0);
        let pgMs = 0;
        for (const pid of new Set([...start.pg.keys(), ...(await backends())])) {
          pgMs += safeCpu(pid) - (start.pg.get(pid) ?? 0);
        }
        const redis = redisPid ? safeCpu(redisPid) - start.redis : 0;
        await admin.end();
        const us = (ms) => Math.round((ms * 1000) / Math.max(n, 1));
        return {
          api: us(api),
          postgres: us(pgMs),
          redis: us(redis),
          total: us(api + pgMs + redis),
        };
      },
      close: () => admin.end(),
    };
  }
}

/** User + system CPU time of a process so far, in ms (from /proc/<pid>/stat, 10-ms ticks). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Resident set size of a process in MB, from /proc/<pid>/status. */
function rssMb(pid) {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return match ? Number(match[1]) / 1024 : NaN;
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

async function prepareDatabase() {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DB}`);
  } finally {
    await admin.end();
  }
}

async function machineInfo(db) {
  const { rows } = await db.query('SHOW server_version');
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model ?? 'unknown',
    cpu_count: cpus.length,
    total_memory_gb: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgresql: rows[0].server_version,
  };
}

/**
 * The database, the API, the receiver and the fixtures every measure uses: an account, an API
 * key, campaigns (a fresh one per ingest run, one for the memory upload, "hooks" with an endpoint
 * subscribed to lead.created on the receiver, "scale" with two endpoints that never receive
 * anything), and a bearer token.
 */
async function setup(state) {
  await prepareDatabase();
  const receiver = await forkReady('lib/receiver.mjs');
  state.receiver = receiver.child;
  const receiverUrl = `http://127.0.0.1:${receiver.port}/hooks`;

  const started = await startApi();
  state.api = started.api;
  base = started.base;
  log(`API at ${base} (pid ${state.api.pid}), receiver at ${receiverUrl}`);

  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  state.db = db;
  await db.query('CREATE SCHEMA IF NOT EXISTS bench_ceiling');

  const account = await cli('account', 'create', '--name', 'Bench');
  const campaignNames = [
    'scale',
    'memory',
    'hooks',
    ...Array.from({ length: SIZES.ingestRuns }, (_, i) => `ingest-${i + 1}`),
    ...Array.from({ length: SIZES.ingestWarmups }, (_, i) => `ingest-warmup-${i + 1}`),
  ];
  const [apiKey, ...campaignList] = await mapLimit(['api-key', ...campaignNames], 3, (name) =>
    name === 'api-key'
      ? cli('api-key', 'create', '--account', String(account.id), '--name', 'bench')
      : cli('campaign', 'create', '--account', String(account.id), '--name', `Bench ${name}`),
  );
  const campaigns = Object.fromEntries(campaignNames.map((name, i) => [name, campaignList[i]]));
  const endpoint = (campaign, url, events) =>
    cli('endpoint', 'create', '--campaign', String(campaign.id), '--url', url, '--events', events);
  const [hook, empty, full] = await Promise.all([
    endpoint(campaigns.hooks, receiverUrl, 'lead.created'),
    endpoint(campaigns.scale, `${receiverUrl}/never`, 'call.completed'),
    endpoint(campaigns.scale, `${receiverUrl}/never`, 'call.completed'),
  ]);
  log(`fixtures ready (${campaignNames.length} campaigns, 3 endpoints)`);

  const exchange = await call('POST', '/api/v1/auth/api-key/token', {
    body: JSON.stringify({ api_key: apiKey.api_key }),
  });
  if (exchange.status !== 200) {
    throw new Error(`token exchange answered ${exchange.status}: ${exchange.text}`);
  }
  const token = JSON.parse(exchange.text).access_token;

  const ctx = {
    state,
    db,
    apiKey: apiKey.api_key,
    token,
    campaigns,
    endpoints: { hook, empty, full },
    receiverUrl,
    received: 0, // requests the receiver has had so far

    /** Uploads leads: the call's timings plus the parsed 202 (null, and noted, otherwise). */
    async upload(campaign, leads, label) {
      const res = await call('POST', '/api/v1/leads/upload', {
        body: uploadBody(campaign.id, leads),
        token,
      });
      if (res.status !== 202) {
        note(`${label}: upload answered ${res.status}: ${res.text.slice(0, 300)}`);
        return { ...res, accepted: null };
      }
      const accepted = JSON.parse(res.text);
      if (accepted.valid_count !== leads.length) {
        note(
          `${label}: ${accepted.valid_count} of ${leads.length} leads valid ` +
            `(${accepted.invalid_count} invalid, ${accepted.duplicate_count} duplicates)`,
        );
      }
      return { ...res, accepted };
    },

    /** Waits until the receiver has had n requests (see bench/lib/receiver.mjs). */
    async waitFor(n, from, timeoutMs) {
      const message = { cmd: 'wait', n, from, timeoutMs };
      const answer = await ask(state.receiver, message, timeoutMs + 5_000);
      ctx.received = answer.count;
      return answer;
    },
  };
  return ctx;
}

/** Peak RSS of the API during one upload over its idle RSS (after a warm-up upload). */
async function measureMemory(ctx) {
  const pid = ctx.state.api.pid;
  await ctx.upload(ctx.campaigns.scale, makeLeads(SIZES.warmupLeads), 'warm-up');
  await sleep(1_000);
  const idleSamples = [];
  for (let i = 0; i < 20; i++) {
    idleSamples.push(rssMb(pid));
    await sleep(5);
  }
  const idle = median(idleSamples);
  let peak = idle;
  const leads = makeLeads(SIZES.rssLeads);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 5);
  try {
    await ctx.upload(ctx.campaigns.memory, leads, 'memory upload');
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssMb(pid));
  log(`memory: idle ${idle.toFixed(1)} MB, peak ${peak.toFixed(1)} MB`);
  return { idle_mb: idle, peak_mb: peak, leads: SIZES.rssLeads };
}

/**
 * Ours, COPY and naive INSERTs interleaved, the same rows in each round, after
 * `SIZES.ingestWarmups` rounds of ours and COPY that are not counted.
 */
async function measureIngest(ctx) {
  const ingest = { ours: [], copy: [], naive: [], upload_ms: [], warmup_ours: [] };
  for (let i = 1; i <= SIZES.ingestWarmups; i++) {
    const leads = makeLeads(SIZES.ingestLeads);
    const campaign = ctx.campaigns[`ingest-warmup-${i}`];
    const res = await ctx.upload(campaign, leads, `ingest warm-up ${i}`);
    if (res.accepted) ingest.warmup_ours.push(leads.length / ((res.doneAt - res.startedAt) / 1000));
    await copyRate(ctx.db, leads, campaign.id, `warmup_${i}`);
    log(
      `ingest warm-up ${i}/${SIZES.ingestWarmups}: ours ${Math.round(ingest.warmup_ours.at(-1) ?? 0)} leads/s`,
    );
  }
  for (let i = 1; i <= SIZES.ingestRuns; i++) {
    const leads = makeLeads(SIZES.ingestLeads);
    const campaign = ctx.campaigns[`ingest-${i}`];
    const res = await ctx.upload(campaign, leads, `ingest ${i}`);
    if (res.accepted?.valid_count === leads.length) {
      const ms = res.doneAt - res.startedAt; // request sent → whole 202 body read
      ingest.ours.push(leads.length / (ms / 1000));
      ingest.upload_ms.push(ms);
    }
    ingest.copy.push(await copyRate(ctx.db, leads, campaign.id, i));
    ingest.naive.push(await naiveRate(ctx.db, leads, campaign.id, i));
    log(
      `ingest ${i}/${SIZES.ingestRuns}: ours ${Math.round(ingest.ours.at(-1) ?? 0)}, ` +
        `COPY ${Math.round(ingest.copy.at(-1))}, naive ${Math.round(ingest.naive.at(-1))} leads/s`,
    );
  }
  return ingest;
}

/** Single-lead uploads to "hooks": 202 received → first delivery at the receiver (ms). */
async function measureLatency(ctx) {
  const warm = await ctx.upload(ctx.campaigns.hooks, makeLeads(1), 'latency warm-up');
  if (warm.accepted) await ctx.waitFor(ctx.received + 1, ctx.received, 10_000);
  const latencies = [];
  for (let i = 1; i <= SIZES.latencyUploads; i++) {
    const before = ctx.received;
    const res = await ctx.upload(ctx.campaigns.hooks, makeLeads(1), `latency upload ${i}`);
    if (!res.accepted) continue;
    const answer = await ctx.waitFor(before + 1, before, 10_000);
    if (answer.timedOut) note(`latency upload ${i}: no delivery within 10 s`);
    else latencies.push(answer.fromAt - res.headersAt);
  }
  latencies.sort((a, b) => a - b);
  log(`latency: p50 ${percentile(latencies, 50)?.toFixed(1)} ms over ${latencies.length} uploads`);
  return latencies;
}

/** One N-lead upload to "hooks": 202 → N-th delivery at the receiver. */
async function dispatchUpload(ctx) {
  const total = SIZES.dispatchLeads;
  const dispatch = { leads: total };
  const before = ctx.received;
  const idsBefore = (await ctx.waitFor(0, 0, 1_000)).distinctIds;
  const cpu = await cpuOfServices(ctx);
  const res = await ctx.upload(ctx.campaigns.hooks, makeLeads(total), 'dispatch upload');
  if (res.accepted) {
    const answer = await ctx.waitFor(before + total, before, SIZES.dispatchTimeoutMs);
    const delivered = answer.count - before;
    // CPU per delivery of each part, the upload included: steadier than deliveries/s when
    // other work shares the machine, so two versions of the code compare fairly.
    dispatch.cpu_us_per_delivery = await cpu.perItem(delivered);
    Object.assign(dispatch, {
      delivered,
      distinct_webhook_ids: answer.distinctIds - idsBefore,
      upload_ms: res.headersAt - res.startedAt,
      seconds: (answer.lastAt - res.headersAt) / 1000,
    });
    dispatch.per_s = Math.min(delivered, total) / dispatch.seconds;
    if (answer.timedOut) note(`dispatch: ${delivered} of ${total} delivered within the time limit`);
    if (dispatch.distinct_webhook_ids !== delivered) {
      note(`dispatch: ${delivered} deliveries but ${dispatch.distinct_webhook_ids} webhook-ids`);
    }
  } else {
    await cpu.close();
  }
  return dispatch;
}

/** One N-lead upload to "hooks" (202 → N-th delivery), then raw undici POSTs of one delivery. */
async function measureDispatch(ctx) {
  const total = SIZES.dispatchLeads;
  const dispatch = await dispatchUpload(ctx);
  const cpu = dispatch.cpu_us_per_delivery;
  log(
    `dispatch: ${Math.round(dispatch.per_s ?? 0)} deliveries/s` +
      (cpu ? ` (CPU µs each: API ${cpu.api}, PostgreSQL ${cpu.postgres}, Redis ${cpu.redis})` : ''),
  );

  // Ceiling: the same number of POSTs of a real delivery (body and webhook headers) to the same
  // receiver, CEILING_CONCURRENCY at a time; start → last arrival at the receiver.
  const { sample } = await ask(ctx.state.receiver, { cmd: 'sample' });
  if (!sample) throw new Error('the receiver has no delivered webhook to copy');
  const agent = new Agent();
  const ceilingBefore = ctx.received;
  let sent = 0;
  const startedAt = nowMs();
  const lanes = Array.from({ length: CEILING_CONCURRENCY }, async () => {
    while (sent < total) {
      sent++;
      const post = await request(ctx.receiverUrl, {
        method: 'POST',
        headers: sample.headers,
        body: sample.body,
        dispatcher: agent,
      });
      await post.body.dump();
    }
  });
  await Promise.all(lanes);
  const answer = await ctx.waitFor(ceilingBefore + total, ceilingBefore, 10_000);
  await agent.close();
  dispatch.ceiling_per_s = (answer.count - ceilingBefore) / ((answer.lastAt - startedAt) / 1000);
  dispatch.body_bytes = Buffer.byteLength(sample.body);
  log(`dispatch ceiling: ${Math.round(dispatch.ceiling_per_s)} POSTs/s`);
  return dispatch;
}

/**
 * Two processes instead of one: a second `node dist/main.js` (API + worker) on the first one's
 * port (HTTP_REUSE_PORT), then the health reads at READ_CONNECTIONS (the kernel spreads the
 * connections over both) and one N-lead dispatch (both workers take jobs). Stops it after.
 */
async function measureScaleOut(ctx) {
  const { hooks } = ctx.campaigns;
  const port = Number(new URL(base).port);
  const second = await startApi(port);
  ctx.state.secondApi = second.api;
  try {
    const healthPath = `/api/v1/webhooks/${hooks.id}/endpoints/${ctx.endpoints.hook.id}/health`;
    const reads = await warmLoad(
      'scale-out: reads (two processes)',
      {
        url: `${base}${healthPath}`,
        headers: { authorization: `Bearer ${ctx.token}` },
        connections: READ_CONNECTIONS,
      },
      SIZES.readSeconds,
      [ctx.state.api.pid, second.api.pid],
    );
    const dispatch = await dispatchUpload(ctx);
    log(
      `scale-out (two processes): health ${Math.round(reads.requests_per_s)} req/s, ` +
        `dispatch ${Math.round(dispatch.per_s ?? 0)} deliveries/s`,
    );
    return { processes: 2, reads, dispatch };
  } finally {
    await stopChild(second.api, 'SIGTERM', 35_000);
    ctx.state.secondApi = null;
  }
}

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
async function measureObservability(ctx) {
  const { hooks } = ctx.campaigns;
  const healthPath = `/api/v1/webhooks/${hooks.id}/endpoints/${ctx.endpoints.hook.id}/health`;
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
  const rounds = QUICK ? 1 : 3;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, extraEnv] of Object.entries(variants)) {
        await stopChild(ctx.state.api, 'SIGTERM', 35_000);
        const started = await startApi(0, extraEnv);
        ctx.state.api = started.api;
        base = started.base;
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
              url: `${base}${healthPath}`,
              headers: { authorization: `Bearer ${ctx.token}` },
              connections: READ_CONNECTIONS,
            },
            SIZES.readSeconds,
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

/** Health of the "hooks" endpoint at READ_CONNECTIONS, then a bare Fastify, the same way. */
async function measureReads(ctx) {
  const { hooks } = ctx.campaigns;
  const healthPath = `/api/v1/webhooks/${hooks.id}/endpoints/${ctx.endpoints.hook.id}/health`;
  const health = await call('GET', healthPath, { token: ctx.token });
  if (health.status !== 200) throw new Error(`health answered ${health.status}: ${health.text}`);
  const reads = { body_bytes: Buffer.byteLength(health.text) };
  const headers = { authorization: `Bearer ${ctx.token}` };
  const options = { headers, connections: READ_CONNECTIONS };
  const apiPid = ctx.state.api.pid;
  reads.ours = await warmLoad(
    'reads (ours)',
    { ...options, url: `${base}${healthPath}` },
    SIZES.readSeconds,
    apiPid,
  );
  // The event types: the same path through authentication, rate limit and campaign access,
  // without a database read.
  reads.events = await warmLoad(
    'reads: events (ours)',
    { ...options, url: `${base}/api/v1/webhooks/${hooks.id}/events` },
    SIZES.readSeconds,
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
      SIZES.readSeconds,
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

/** Token exchanges at READ_CONNECTIONS (one API key, as many exchanges as it can). */
async function measureToken(ctx) {
  const result = await warmLoad(
    'token exchange',
    {
      url: `${base}/api/v1/auth/api-key/token`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: ctx.apiKey }),
      connections: READ_CONNECTIONS,
    },
    SIZES.tokenSeconds,
    ctx.state.api.pid,
  );
  log(
    `token exchange: ${Math.round(result.requests_per_s)}/s ` +
      `(${result.cpu_us_per_request?.toFixed(0)} µs CPU each)`,
  );
  return result;
}

/** Health read of an endpoint with 0 attempts vs one with SIZES.attempts (inserted with SQL). */
async function measureScale(ctx) {
  const { empty, full } = ctx.endpoints;
  const scale = { attempts: SIZES.attempts };
  const insertStarted = nowMs();
  await ctx.db.query(
    `INSERT INTO webhook_delivery_attempt
       (endpoint_id, delivery_id, message_id, attempted_at, duration_ms, status_code, success)
     SELECT $1, NULL, 'bench', now(), 10, 200, true FROM generate_series(1, $2::int)`,
    [full.id, SIZES.attempts],
  );
  await ctx.db.query(
    `UPDATE webhook_endpoint SET total_deliveries = $2, successful_deliveries = $2,
       total_duration_ms = $3, last_delivery_at = now(), last_delivery_is_successful = true
     WHERE id = $1`,
    [full.id, SIZES.attempts, SIZES.attempts * 10],
  );
  scale.insert_seconds = (nowMs() - insertStarted) / 1000;
  // Vacuum now, so autovacuum does not wake up for the new rows in the middle of the reads.
  const vacuumStarted = nowMs();
  await ctx.db.query('VACUUM (ANALYZE) webhook_delivery_attempt');
  scale.vacuum_seconds = (nowMs() - vacuumStarted) / 1000;
  log(
    `scale: ${SIZES.attempts} attempts inserted in ${scale.insert_seconds.toFixed(1)} s, ` +
      `vacuumed in ${scale.vacuum_seconds.toFixed(1)} s`,
  );

  const url = (endpoint) =>
    `${base}/api/v1/webhooks/${ctx.campaigns.scale.id}/endpoints/${endpoint.id}/health`;
  const check = await request(url(full), { headers: { authorization: `Bearer ${ctx.token}` } });
  const checkText = await check.body.text();
  if (check.statusCode !== 200 || JSON.parse(checkText).total_deliveries !== SIZES.attempts) {
    note(`scale: health of the full endpoint answered ${check.statusCode}: ${checkText}`);
  }
  const options = {
    headers: { authorization: `Bearer ${ctx.token}` },
    connections: SCALE_CONNECTIONS,
  };
  scale.empty = await warmLoad(
    'scale (0 attempts)',
    { ...options, url: url(empty) },
    SIZES.scaleSeconds,
  );
  scale.full = await warmLoad(
    `scale (${SIZES.attempts} attempts)`,
    { ...options, url: url(full) },
    SIZES.scaleSeconds,
  );
  return scale;
}

/** The whole run; state holds what must be stopped whatever happens. */
async function run(state) {
  const startedAt = new Date();
  const clockStart = nowMs();
  log(`${QUICK ? 'quick' : 'full'} run, queue prefix ${QUEUE_PREFIX}`);
  const ctx = await setup(state);
  const machine = await machineInfo(ctx.db);

  const memory = runs('memory') ? await measureMemory(ctx) : null;
  const ingest = runs('ingest') ? await measureIngest(ctx) : null;
  const latencies = runs('latency') ? await measureLatency(ctx) : null;
  const dispatch = runs('dispatch') ? await measureDispatch(ctx) : null;
  const reads = runs('reads') ? await measureReads(ctx) : null;
  const tokenLoad = runs('token') ? await measureToken(ctx) : null;
  const scale = runs('scale') ? await measureScale(ctx) : null;
  const scaleOut = runs('scaleout') ? await measureScaleOut(ctx) : null;
  const observability = runs('observability') ? await measureObservability(ctx) : null;

  const apiExit = await stopChild(state.api, 'SIGTERM', 35_000);
  if (apiExit.code !== 0)
    note(`the API exited with code ${apiExit.code}, signal ${apiExit.signal}`);

  return {
    startedAt,
    runtimeSeconds: (nowMs() - clockStart) / 1000,
    machine,
    memory,
    ingest,
    latencies,
    dispatch,
    reads,
    tokenLoad,
    scale,
    scaleOut,
    observability,
    apiExit,
  };
}

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

function formatValue(value, unit) {
  if (value == null || Number.isNaN(value)) return 'n/a';
  if (unit === 'ms') return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  if (unit === 'MB') return `${value.toFixed(1)} MB`;
  return `${Math.round(value).toLocaleString('en-US')} ${unit}`;
}
function formatRatio(ratio) {
  if (ratio == null || Number.isNaN(ratio)) return '—';
  if (ratio >= 10) return ratio.toFixed(1);
  if (ratio >= 0.1) return ratio.toFixed(2);
  return ratio.toPrecision(2);
}

/**
 * The table's rows. ratio = ours / ceiling; where no ceiling is measured (token exchange,
 * latency) the ceiling column holds the goal and ratio = ours / goal.
 */
function buildRows(r) {
  const rows = [];
  const add = (
    measure,
    { ours, ceiling, unit, label, ratio, goal = null, met = null, guard = null },
  ) =>
    rows.push({
      measure,
      unit,
      ours_value: ours ?? null,
      ceiling_value: ceiling ?? null,
      ceiling_label: label,
      ratio: ratio === undefined ? ratioOf(ours, ceiling) : ratio,
      goal,
      met,
      // The ratio this row's goal asks for, for --guard (null: not guarded).
      guard,
    });
  const count = (n) => n.toLocaleString('en-US');
  const conns = `${READ_CONNECTIONS} conns`;

  const ingest = median(r.ingest.ours);
  const leads = `${count(SIZES.ingestLeads)}-lead upload, median of ${SIZES.ingestRuns} after ${SIZES.ingestWarmups} warm-ups`;
  const copy = median(r.ingest.copy);
  const ingestRatio = ratioOf(ingest, copy);
  add(`ingest (${leads})`, {
    ours: ingest,
    ceiling: copy,
    unit: 'leads/s',
    label: 'COPY',
    goal: `≥ ${GOALS.ingest} of COPY`,
    met: ingestRatio == null ? null : ingestRatio >= GOALS.ingest,
    guard: GOALS.ingest,
  });
  const naive = median(r.ingest.naive);
  add('ingest vs naive peer', {
    ours: ingest,
    ceiling: naive,
    unit: 'leads/s',
    label: 'INSERT per lead, 1 tx',
  });

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

  add(`token exchange (${conns})`, {
    ours: r.tokenLoad.requests_per_s,
    ceiling: TOKEN_GOAL_PER_S,
    unit: 'exchanges/s',
    label: 'the goal, not measured',
    goal: `≥ ${count(TOKEN_GOAL_PER_S)}/s`,
    met: r.tokenLoad.requests_per_s >= TOKEN_GOAL_PER_S,
  });
  const tokenRatio = ratioOf(r.tokenLoad.requests_per_s, ours.requests_per_s);
  add(`token exchange vs our health reads (${conns})`, {
    ours: r.tokenLoad.requests_per_s,
    ceiling: ours.requests_per_s,
    unit: 'exchanges/s',
    label: 'our health reads',
    goal: `≥ ${GOALS.token} of our health reads`,
    met: tokenRatio == null ? null : tokenRatio >= GOALS.token,
    guard: GOALS.token,
  });

  add(`dispatch (${count(SIZES.dispatchLeads)} leads, 202 → last delivery)`, {
    ours: r.dispatch.per_s,
    ceiling: r.dispatch.ceiling_per_s,
    unit: 'deliveries/s',
    label: `raw undici POSTs, ${CEILING_CONCURRENCY} at once`,
    goal: `≥ ${GOALS.dispatch} of raw undici`,
    met:
      r.dispatch.per_s == null
        ? null
        : ratioOf(r.dispatch.per_s, r.dispatch.ceiling_per_s) >= GOALS.dispatch,
    guard: GOALS.dispatch,
  });

  for (const p of ['p50', 'p99']) {
    const value = percentile(r.latencies, Number(p.slice(1)));
    add(`latency: 202 → first delivery ${p} (${r.latencies.length} uploads)`, {
      ours: value,
      ceiling: LATENCY_GOALS_MS[p],
      unit: 'ms',
      label: 'the goal',
      goal: `≤ ${LATENCY_GOALS_MS[p]} ms`,
      met: value == null ? null : value <= LATENCY_GOALS_MS[p],
    });
  }

  const { empty, full } = r.scale;
  const attempts = `${count(SIZES.attempts)} attempts`;
  for (const p of ['p50', 'p99']) {
    const ratio = ratioOf(full[`${p}_ms`], empty[`${p}_ms`]);
    add(`scale: health ${p}, ${attempts} (${SCALE_CONNECTIONS} conns)`, {
      ours: full[`${p}_ms`],
      ceiling: empty[`${p}_ms`],
      unit: 'ms',
      label: '0 attempts',
      ratio,
      ...(p === 'p99' && {
        goal: `≈ 1 (flat; ≤ ${SCALE_FLAT_MAX})`,
        met: ratio == null ? null : ratio <= SCALE_FLAT_MAX,
      }),
    });
  }

  const { peak_mb, idle_mb } = r.memory;
  add(`memory: API peak RSS, ${count(r.memory.leads)}-lead upload`, {
    ours: peak_mb,
    ceiling: idle_mb,
    unit: 'MB',
    label: 'idle',
    goal: '≤ +150 MB over idle',
    met: peak_mb == null || idle_mb == null ? null : peak_mb - idle_mb <= 150,
  });

  if (r.scaleOut) {
    add(`scale-out: health, two processes (${conns})`, {
      ours: r.scaleOut.reads.requests_per_s,
      ceiling: ours.requests_per_s,
      unit: 'req/s',
      label: 'one process',
    });
    add(`scale-out: dispatch, two processes (${count(SIZES.dispatchLeads)} leads)`, {
      ours: r.scaleOut.dispatch.per_s,
      ceiling: r.dispatch.per_s,
      unit: 'deliveries/s',
      label: 'one process',
    });
  }

  if (r.observability) {
    const o = r.observability;
    for (const [name, goal, label] of [
      ['metrics', 0.9, 'metrics on'],
      ['tracing', 0.75, 'tracing on, 100 % sampled'],
      ['tracing_10', 0.75, 'tracing on, 10 % sampled'],
    ]) {
      add(`observability: health, ${label} (${conns})`, {
        ours: o[name].health_per_s,
        ceiling: o.off.health_per_s,
        unit: 'req/s',
        label: 'both off',
        goal: `≥ ${goal}`,
        met: ratioOf(o[name].health_per_s, o.off.health_per_s) >= goal,
      });
      add(`observability: dispatch, ${label} (${count(SIZES.dispatchLeads)} leads)`, {
        ours: o[name].dispatch_per_s,
        ceiling: o.off.dispatch_per_s,
        unit: 'deliveries/s',
        label: 'both off',
        goal: `≥ ${goal}`,
        met: ratioOf(o[name].dispatch_per_s, o.off.dispatch_per_s) >= goal,
      });
    }
  }
  return rows;
}

function displayRow(row) {
  const ceiling =
    row.ceiling_value == null
      ? '—'
      : `${formatValue(row.ceiling_value, row.unit)} (${row.ceiling_label})`;
  let ours = formatValue(row.ours_value, row.unit);
  if (row.unit === 'MB' && row.ours_value != null) {
    ours += ` (+${(row.ours_value - row.ceiling_value).toFixed(1)} MB)`;
  }
  return [
    row.measure,
    ours,
    ceiling,
    formatRatio(row.ratio),
    row.goal ?? '—',
    row.met == null ? '—' : row.met ? 'yes' : 'no',
  ];
}

const HEADER = ['measure', 'ours', 'ceiling', 'ratio', 'goal', 'met?'];

function textTable(rows) {
  const cells = [HEADER, ...rows.map(displayRow)];
  const widths = HEADER.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c) =>
    c
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    line(cells[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n');
}

function markdown(rows, result) {
  const m = result.machine;
  const command = `node bench/run.mjs${QUICK ? ' --quick' : ''}`;
  const lines = [
    `Benchmark (${QUICK ? 'quick' : 'full'} run, ${result.startedAt.toISOString()}): ` +
      `${m.cpu_count} × ${m.cpu_model}, ${m.total_memory_gb} GB, Node ${m.node}, ` +
      `PostgreSQL ${m.postgresql}; \`${command}\` took ${Math.round(result.runtimeSeconds)} s.`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${displayRow(row).join(' | ')} |`),
    '',
    'ratio = ours / ceiling, or ours / goal where the ceiling column holds the goal ' +
      '(throughputs: higher is better; latencies and memory: lower is better). Ceilings are ' +
      'measured in the same run on the same machine, with the load generator on it too.',
  ];
  if (notes.length) lines.push('', 'Notes:', ...notes.map((n) => `- ${n}`));
  return lines.join('\n') + '\n';
}

function writeResults(rows, result) {
  const dir = join(here, 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = result.startedAt.toISOString().replace(/[:.]/g, '-');
  const suffix = QUICK ? '-quick' : '';
  const json = {
    mode: QUICK ? 'quick' : 'full',
    started_at: result.startedAt.toISOString(),
    runtime_seconds: +result.runtimeSeconds.toFixed(1),
    machine: result.machine,
    sizes: SIZES,
    rows: rows.map((row) => ({
      ...row,
      display: Object.fromEntries(HEADER.map((h, i) => [h, displayRow(row)[i]])),
    })),
    details: {
      memory: result.memory,
      ingest: result.ingest,
      latency_ms: result.latencies,
      dispatch: result.dispatch,
      reads: result.reads,
      token_exchange: result.tokenLoad,
      scale: result.scale,
      scale_out: result.scaleOut,
      api_exit: result.apiExit,
      api_log: apiLog,
    },
    notes,
  };
  const text = JSON.stringify(json, null, 2) + '\n';
  const files = [`${stamp}${suffix}.json`, `latest${suffix}.json`];
  for (const file of files) writeFileSync(join(dir, file), text);
  writeFileSync(join(dir, `latest${suffix}.md`), markdown(rows, result));
  return [...files, `latest${suffix}.md`].map((f) => join('bench/results', f));
}

/**
 * Deletes this run's BullMQ keys (`{<QUEUE_PREFIX>}:*`, hash-tagged) and rate-limit keys
 * (`<QUEUE_PREFIX>:*`) from Redis.
 */
async function cleanRedis() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await redis.connect();
    for (const pattern of [`${QUEUE_PREFIX}:*`, `{${QUEUE_PREFIX}}:*`]) {
      let cursor = '0';
      let rounds = 0;
      do {
        const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = nextCursor;
      } while (cursor !== '0' && ++rounds < 100_000);
    }
  } catch (error) {
    note(`could not clean Redis keys ${QUEUE_PREFIX}:*: ${error.message}`);
  } finally {
    redis.disconnect();
  }
}

/** Stops every child still running, closes the database client, cleans Redis. Idempotent. */
async function shutdown(state) {
  for (const child of [state.fastify, state.secondApi, state.api, state.receiver]) {
    if (child) await stopChild(child, 'SIGTERM', 35_000);
  }
  await state.db?.end().catch(() => {});
  state.db = null;
  if (!state.redisCleaned) {
    state.redisCleaned = true;
    await cleanRedis();
  }
}

async function main() {
  const state = {};
  try {
    const result = await run(state);
    await shutdown(state);
    // The two development-secret warnings are expected (no .env); anything else is noted.
    const unexpected = apiLog.lines.filter((line) => !EXPECTED_API_LOG.test(line));
    if (unexpected.length > 0) {
      note(
        `the API logged ${apiLog.total} lines besides "listening" ` +
          `(${JSON.stringify(apiLog.byLevel)}); first unexpected: ${unexpected.slice(0, 3).join(' | ')}`,
      );
    }
    if (ONLY !== null) {
      // A partial run: raw figures only; the table and the result files need every step.
      console.log(JSON.stringify(result, null, 2));
      if (notes.length) console.log(`notes:\n${notes.map((n) => `  - ${n}`).join('\n')}`);
      return 0;
    }
    const rows = buildRows(result);
    const files = writeResults(rows, result);
    console.log(`\n${textTable(rows)}\n`);
    console.log(`machine: ${JSON.stringify(result.machine)}`);
    console.log(`runtime: ${result.runtimeSeconds.toFixed(1)} s; written: ${files.join(', ')}`);
    if (notes.length) console.log(`notes:\n${notes.map((n) => `  - ${n}`).join('\n')}`);
    if (args.guard) {
      const fallen = rows.filter((row) => row.guard !== null && !(row.ratio >= row.guard / 2));
      for (const row of fallen) {
        console.log(
          `regression: ${row.measure}: ratio ${formatRatio(row.ratio)} is below half of its goal (${row.goal})`,
        );
      }
      if (fallen.length > 0) return 1;
      console.log('guard: every ratio is at least half of its goal');
    }
    return 0;
  } catch (error) {
    log(`the harness broke: ${error.stack ?? error}`);
    await shutdown(state).catch((e) => log(`shutdown failed: ${e.message}`));
    return 1;
  }
}

process.exit(await main());
