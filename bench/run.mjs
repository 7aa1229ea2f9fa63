#!/usr/bin/env node
/**
 * Campaign API benchmark: prints figures, never pass/fail (exit 0 unless the harness itself
 * breaks). Each figure stands beside a ceiling measured in the same run on the same machine
 * (or beside a stated goal), as ratio = ours / ceiling.
 *
 *   npm run build && node bench/run.mjs [--quick] [--guard] [--only step,step]
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
 *      - ordering: per-lead ordering's cost (measures/ordering.mjs, not guarded): deliveries/s of
 *                  N leads × 3 events to an ordered endpoint vs an unordered one, and the other
 *                  leads' lag p99 beside a lead whose deliveries fail vs without it.
 *      - transformations: CPU per call of the worked transformation through the sandbox's worker
 *                  threads (bench/transformations.mjs, in a child process of its own; not
 *                  guarded), against the ceiling 0.5 ms.
 *      - transformed: a transformation's cost (measures/transformed.mjs, not guarded):
 *                  deliveries/s of N leads to an endpoint running the README's HubSpot example
 *                  vs one without, rounds alternating.
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
 * --guard (CI): exits 1 when a guarded ratio falls below half of its goal (lib/settings.mjs), or
 * ingest's or dispatch's below 0.85 of its baseline (bench/baseline.json) twice in a row.
 * --update-baseline (with --quick): writes this run's ingest and dispatch ratios to
 * bench/baseline.json.
 * --only memory,ingest,…: runs just those steps and prints their raw figures (no table, no files).
 *
 * All traffic goes to 127.0.0.1. Every child process is stopped on exit, error or signal.
 *
 * This file parses the options and runs the measures in order; each measure (its procedure and
 * its rows of the table) is a file of bench/measures/, the shared machinery is in bench/lib/
 * (bench/README.md, "Where things are").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EXPECTED_API_LOG, QUEUE_PREFIX, apiLog } from './lib/api-process.mjs';
import { benchDir, log, note, notes, nowMs, stopChild } from './lib/harness.mjs';
import { buildRows, guard, textTable, writeResults } from './lib/report.mjs';
import { BASELINE_TOLERANCE, sizesFor } from './lib/settings.mjs';
import { machineInfo, setup, shutdown } from './lib/setup.mjs';
import * as dispatch from './measures/dispatch.mjs';
import * as ingest from './measures/ingest.mjs';
import * as latency from './measures/latency.mjs';
import * as memory from './measures/memory.mjs';
import * as observability from './measures/observability.mjs';
import * as ordering from './measures/ordering.mjs';
import * as transformed from './measures/transformed.mjs';
import * as reads from './measures/reads.mjs';
import * as scaleOut from './measures/scale-out.mjs';
import * as scale from './measures/scale.mjs';
import * as token from './measures/token.mjs';
import * as transformations from './transformations.mjs';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    guard: { type: 'boolean', default: false },
    'update-baseline': { type: 'boolean', default: false },
  },
});
const QUICK = args.quick;
/**
 * bench/baseline.json: the quick run's ingest and dispatch ratios that --guard holds the code
 * to (bench/README.md, "The regression guard"); --update-baseline writes it.
 */
const BASELINE_FILE = join(benchDir, 'baseline.json');
const BASELINE = JSON.parse(readFileSync(BASELINE_FILE, 'utf8')).ratios;
if (args['update-baseline'] && !QUICK)
  throw new Error('--update-baseline: the baseline holds a --quick run');
/**
 * The steps in the order they run: [--only's name, the key of its figures in the result, its
 * measure]. `--only ingest,reads` runs just those and prints their raw figures.
 */
const MEASURES = [
  ['memory', 'memory', memory],
  ['ingest', 'ingest', ingest],
  ['latency', 'latencies', latency],
  ['dispatch', 'dispatch', dispatch],
  ['reads', 'reads', reads],
  ['token', 'tokenLoad', token],
  ['scale', 'scale', scale],
  ['scaleout', 'scaleOut', scaleOut],
  ['observability', 'observability', observability],
  ['ordering', 'ordering', ordering],
  ['transformations', 'transformations', transformations],
  ['transformed', 'transformed', transformed],
];
const STEPS = MEASURES.map(([step]) => step);
/** The measures in the order of the table's rows. */
const TABLE = [
  ingest,
  reads,
  token,
  dispatch,
  latency,
  scale,
  memory,
  scaleOut,
  observability,
  ordering,
  transformations,
  transformed,
];
const ONLY = args.only ? new Set(args.only.split(',')) : null;
for (const step of ONLY ?? []) {
  if (!STEPS.includes(step)) throw new Error(`--only: unknown step ${step}; use ${STEPS}`);
}
const runs = (step) => ONLY === null || ONLY.has(step);
const SIZES = sizesFor(QUICK);

/** The ratio --guard holds to the baseline of a measure's figures (null: none). */
function guardRatioOf(key, figures, measure) {
  const rows = buildRows({ [key]: figures }, SIZES, [measure]);
  return rows.find((row) => row.baseline !== null)?.guard_ratio ?? null;
}

/**
 * A step's figures. With --guard, a step with a baseline whose ratio falls below
 * BASELINE_TOLERANCE of it is measured once more, and the better of the two counts (the other
 * is kept under `discarded`): a regression fails twice in a row, a moment of load rarely does.
 */
async function measureGuarded(step, key, measure, ctx) {
  const first = await measure.measure(ctx);
  const floor = BASELINE?.[step] == null ? null : BASELINE_TOLERANCE * BASELINE[step];
  if (!args.guard || floor === null) return first;
  const ratio = guardRatioOf(key, first, measure);
  if (ratio !== null && ratio >= floor) return first;
  log(`${step}: ratio ${ratio?.toFixed(3)} below ${floor.toFixed(3)} (baseline), measuring again`);
  const again = await measure.measure(ctx, true);
  const better = (guardRatioOf(key, again, measure) ?? 0) > (ratio ?? 0);
  return better ? { ...again, discarded: first } : { ...first, discarded: again };
}

/** Writes the run's ingest and dispatch ratios to bench/baseline.json (--update-baseline). */
function writeBaseline(result) {
  const ratios = {};
  for (const [step, key, measure] of MEASURES) {
    if (result[key] == null) continue;
    const ratio = guardRatioOf(key, result[key], measure);
    if (ratio !== null) ratios[step] = +ratio.toFixed(3);
  }
  const previous = JSON.parse(readFileSync(BASELINE_FILE, 'utf8'));
  const next = {
    ...previous,
    ratios: { ...previous.ratios, ...ratios },
    measured: `${result.startedAt.toISOString()}, ${result.machine.cpu_count} × ${result.machine.cpu_model}, Node ${result.machine.node}`,
  };
  writeFileSync(BASELINE_FILE, JSON.stringify(next, null, 2) + '\n');
  console.log(`bench/baseline.json: ${JSON.stringify(next.ratios)}`);
}

/** The whole run; state holds what must be stopped whatever happens. */
async function run(state) {
  const startedAt = new Date();
  const clockStart = nowMs();
  log(`${QUICK ? 'quick' : 'full'} run, queue prefix ${QUEUE_PREFIX}`);
  const ctx = await setup(state, SIZES, QUICK);
  const machine = await machineInfo(ctx.db);

  const figures = {};
  for (const [step, key, measure] of MEASURES) {
    figures[key] = runs(step) ? await measureGuarded(step, key, measure, ctx) : null;
  }

  const apiExit = await stopChild(state.api, 'SIGTERM', 35_000);
  if (apiExit.code !== 0)
    note(`the API exited with code ${apiExit.code}, signal ${apiExit.signal}`);

  return {
    startedAt,
    runtimeSeconds: (nowMs() - clockStart) / 1000,
    machine,
    ...figures,
    apiExit,
  };
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
    if (args['update-baseline']) writeBaseline(result);
    if (ONLY !== null) {
      // A partial run: raw figures only; the table and the result files need every step.
      console.log(JSON.stringify(result, null, 2));
      if (notes.length) console.log(`notes:\n${notes.map((n) => `  - ${n}`).join('\n')}`);
      if (args.guard) {
        const rows = MEASURES.filter(([, key]) => result[key] != null).flatMap(([, key, m]) =>
          buildRows({ [key]: result[key] }, SIZES, [m]),
        );
        if (!guard(rows, BASELINE).ok) return 1;
      }
      return 0;
    }
    const rows = buildRows(result, SIZES, TABLE);
    const files = writeResults(rows, result, SIZES, QUICK);
    console.log(`\n${textTable(rows)}\n`);
    console.log(`machine: ${JSON.stringify(result.machine)}`);
    console.log(`runtime: ${result.runtimeSeconds.toFixed(1)} s; written: ${files.join(', ')}`);
    if (notes.length) console.log(`notes:\n${notes.map((n) => `  - ${n}`).join('\n')}`);
    if (args.guard && !guard(rows, BASELINE).ok) return 1;
    return 0;
  } catch (error) {
    log(`the harness broke: ${error.stack ?? error}`);
    await shutdown(state).catch((e) => log(`shutdown failed: ${e.message}`));
    return 1;
  }
}

process.exit(await main());
