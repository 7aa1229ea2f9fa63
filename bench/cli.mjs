#!/usr/bin/env node
// Operator CLI start-to-exit times (docs/cli.md#running-the-cli): `node dist/cli.js` and
// `npm run cli --` for a write (`account create`) and a read (`endpoint list`), with
// hyperfine when it is installed (apt-get install hyperfine), else by spawning each run
// here. Prints medians; asserts nothing. Build first (`npm run build`).
//
//   node bench/cli.mjs [--runs N]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const root = join(import.meta.dirname, '..');
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 20;
const database = 'campaign_api_bench_cli';
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
await admin.end();
const env = {
  ...process.env,
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
  QUEUE_PREFIX: `bench-cli-${process.pid}`,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
};
const cli = (...args) =>
  JSON.parse(execFileSync(process.execPath, ['dist/cli.js', ...args], { cwd: root, env }));

// The first run creates and migrates the database; the measured runs find it ready.
const account = cli('account', 'create', '--name', 'bench');
const campaign = cli('campaign', 'create', '--account', String(account.id), '--name', 'bench');
for (let i = 0; i < 5; i++) {
  cli(
    'endpoint',
    'create',
    '--campaign',
    String(campaign.id),
    '--url',
    `http://127.0.0.1:9/hook-${i}`,
    '--events',
    'lead.created',
  );
}

const commands = [
  ['node dist/cli.js', 'account create --name bench'],
  ['node dist/cli.js', `endpoint list --campaign ${campaign.id}`],
  ['npm run cli --', 'account create --name bench'],
  ['npm run cli --', `endpoint list --campaign ${campaign.id}`],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const hyperfine = spawnSync('hyperfine', ['--version']).status === 0;
const rows = [];
for (const [runner, args] of commands) {
  const command = `${runner} ${args}`;
  let ms;
  if (hyperfine) {
    const out = join(mkdtempSync(join(tmpdir(), 'bench-cli-')), 'result.json');
    execFileSync(
      'hyperfine',
      ['-N', '--warmup', '3', '--runs', String(runs), '--export-json', out, command],
      { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    ms = JSON.parse(readFileSync(out, 'utf8')).results[0].median * 1000;
  } else {
    const times = [];
    for (let i = 0; i < runs + 3; i++) {
      const [file, ...rest] = command.split(' ');
      const start = process.hrtime.bigint();
      execFileSync(file === 'node' ? process.execPath : file, rest, {
        cwd: root,
        env,
        stdio: 'ignore',
      });
      if (i >= 3) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    ms = median(times);
  }
  rows.push({ command, ms });
}

console.log(
  `\nCLI start-to-exit, median of ${runs} runs (${hyperfine ? 'hyperfine' : 'spawned here'}), node ${process.version}\n`,
);
console.log('| command | median |\n|---|---|');
for (const { command, ms } of rows) console.log(`| \`${command}\` | ${Math.round(ms)} ms |`);
