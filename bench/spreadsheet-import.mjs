#!/usr/bin/env node
// A spreadsheet import at scale (docs/dashboard.md#spreadsheet-imports), through the real
// service (`dist/main.js`, API and worker in one process): a CRM export of N rows (default
// 200,000, about 40 MB: CRM-style headers, a notes column, 2 % broken phones) uploaded through
// the dashboard's route as a stream, started, and followed to the end. Prints the upload time,
// the import time and rate, and the service's resident memory (VmRSS from /proc, sampled every
// 50 ms) at idle and at its peak during upload and import, with the difference. Asserts nothing.
//
// Build first (`npm run build`); PostgreSQL and Redis as for the tests. Drops and recreates the
// database `campaign_api_bench_spreadsheet`.
//
//   node bench/spreadsheet-import.mjs [--rows N] [--format csv|xlsx]
//
// The service runs with the Node flags of `npm start` (docs/operations.md#memory);
// BENCH_NODE_ARGS replaces them (BENCH_NODE_ARGS= for none).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import ExcelJS from 'exceljs';
import pg from 'pg';
import { startApi } from './lib/service.mjs';

const root = join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    format: { type: 'string', default: 'csv' },
  },
});
const ROWS = Number(args.rows);
const FORMAT = args.format;
if (FORMAT !== 'csv' && FORMAT !== 'xlsx') throw new Error('--format is csv or xlsx');
// As `npm start` runs the service (docs/operations.md#memory); BENCH_NODE_ARGS replaces them.
const PRODUCTION_NODE_ARGS = '--max-semi-space-size=16 --heap-growing-percent=10';
const DATABASE = 'campaign_api_bench_spreadsheet';
const server = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const env = {
  ...process.env,
  DATABASE_URL: `${server}/${DATABASE}`,
  QUEUE_PREFIX: `bench-spreadsheet-${process.pid}`,
  LOG_LEVEL: 'warn',
  DASHBOARD_INSECURE_COOKIES: 'true',
};
const log = (line) => process.stdout.write(`${line}\n`);
const mib = (bytes) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

const admin = new pg.Client({ connectionString: `${server}/postgres` });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
await admin.end();

// The file: written to disk, streamed from it.
const dir = await mkdtemp(join(tmpdir(), 'bench-spreadsheet-'));
const fileName = `crm-export.${FORMAT}`;
const file = join(dir, fileName);
{
  const headers = [
    'Mobile',
    'First Name',
    'Last Name',
    'E-mail',
    'Company Name',
    'Job Title',
    'Notes',
  ];
  const notes =
    'Met at the spring open house; asked about the three-bedroom listings near the park and financing';
  const row = (i) => [
    i % 50 === 7
      ? `55-${i}`
      : `(${212 + (i % 7)}) ${String(2_000_000 + i).replace(/^(\d{3})/, '$1-')}`,
    `Ada${i}`,
    'Lovelace',
    `ada.lovelace${i}@example.com`,
    'Analytical Engines Ltd',
    'CTO',
    `${notes} #${i}`,
  ];
  if (FORMAT === 'csv') {
    const lines = [headers.join(',')];
    for (let i = 0; i < ROWS; i++) {
      const cells = row(i);
      cells[6] = `"${cells[6]}"`;
      lines.push(cells.join(','));
    }
    await writeFile(file, lines.join('\r\n') + '\r\n');
  } else {
    // As a spreadsheet program writes it: text in the shared strings table.
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      filename: file,
      useSharedStrings: true,
    });
    const sheet = workbook.addWorksheet('Leads');
    sheet.addRow(headers).commit();
    for (let i = 0; i < ROWS; i++) sheet.addRow(row(i)).commit();
    sheet.commit();
    await workbook.commit();
  }
}
const size = (await stat(file)).size;
log(`File: ${FORMAT.toUpperCase()}, ${ROWS.toLocaleString('en')} rows, ${mib(size)}`);

const { api, base } = await startApi(
  root,
  env,
  (process.env.BENCH_NODE_ARGS ?? PRODUCTION_NODE_ARGS).split(' ').filter(Boolean),
);
const rss = () => {
  const status = readFileSync(`/proc/${api.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
};
const cli = (args, input) =>
  JSON.parse(
    execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { env, input }).toString(),
  );
const account = cli(['account', 'create', '--name', 'Bench']);
const campaign = cli(['campaign', 'create', '--account', String(account.id), '--name', 'Bench']);
const email = `bench-${process.pid}@example.com`;
const password = 'correct horse battery staple';
cli(
  [
    'user',
    'create',
    '--account',
    String(account.id),
    '--email',
    email,
    '--role',
    'admin',
    '--password-stdin',
  ],
  password,
);
const signIn = await fetch(`${base}/dashboard/api/session`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-csrf-token': 'sign-in' },
  body: JSON.stringify({ email, password }),
});
const cookie = signIn.headers.get('set-cookie').split(';')[0];
const { csrf_token: csrf } = await signIn.json();
const headers = { cookie, 'x-csrf-token': csrf };

// Idle: after start-up and a moment's rest.
await new Promise((r) => setTimeout(r, 3_000));
const idle = rss();
let peak = idle;
const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);

let started = performance.now();
const uploaded = await fetch(
  `${base}/dashboard/api/campaigns/${campaign.id}/spreadsheet-imports?file_name=${fileName}`,
  {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/octet-stream',
      'content-length': String(size),
    },
    body: createReadStream(file),
    duplex: 'half',
  },
);
const job = await uploaded.json();
if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(job)}`);
const uploadSeconds = (performance.now() - started) / 1000;
const uploadPeak = peak;
log(
  `Upload (stored in 1 MiB parts, read through once): ${uploadSeconds.toFixed(1)} s; ${job.total_rows.toLocaleString('en')} rows found`,
);

started = performance.now();
const start = await fetch(`${base}/dashboard/api/spreadsheet-imports/${job.id}/start`, {
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify({ mapping: job.suggested_mapping, compliance_acknowledged: true }),
});
if (start.status !== 202) throw new Error(`start: ${start.status} ${await start.text()}`);
let state;
do {
  await new Promise((r) => setTimeout(r, 250));
  state = await (
    await fetch(`${base}/dashboard/api/spreadsheet-imports/${job.id}`, { headers })
  ).json();
} while (state.status === 'running');
const importSeconds = (performance.now() - started) / 1000;
clearInterval(sampler);
log(
  `Import: ${state.status}, ${state.rows_read.toLocaleString('en')} rows in ${importSeconds.toFixed(1)} s ` +
    `(${Math.round(state.rows_read / importSeconds).toLocaleString('en')} rows/s), ${state.chunks_imported} chunks; ` +
    `${state.valid_count.toLocaleString('en')} imported, ${state.invalid_count.toLocaleString('en')} rejected`,
);
log(
  `Service memory (RSS): idle ${mib(idle)}, peak during upload ${mib(uploadPeak)}, peak overall ${mib(peak)}`,
);
log(
  `Peak over idle: ${mib(peak - idle)} = ${((peak - idle) / 1e6).toFixed(1)} MB (goal: within 200 MB)`,
);

api.kill('SIGTERM');
await new Promise((r) => api.once('exit', r));
await rm(dir, { recursive: true, force: true });
