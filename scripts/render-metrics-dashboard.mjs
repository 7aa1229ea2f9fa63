#!/usr/bin/env node
// Renders the Grafana dashboard (deploy/grafana/campaign-api.dashboard.json) from a real run,
// without Prometheus or Grafana: starts the built API (RUN_WORKER=false) and a separate worker,
// each with its own METRICS_PORT, on a fresh database; runs a workload (uploads with invalid and
// duplicate leads, a receiver answering with a mix of 2xx, 4xx, 5xx, slow answers and
// timeouts, an endpoint that always fails, a disabled one); scrapes both metrics ports every
// few seconds; evaluates each panel's PromQL over the scrapes (scripts/metrics-dashboard/
// promql.mjs); draws them with Recharts in Chromium and saves a PNG
// (docs/operations.md#metrics).
//
//   npm run build && node scripts/render-metrics-dashboard.mjs [--seconds 120] [--out docs/images/metrics-dashboard.png]
//
// Needs PostgreSQL and Redis as in development (DATABASE_URL's server; the database
// campaign_api_metrics_demo is dropped and made again) and Chromium (/usr/bin/chromium, or
// CHROMIUM_PATH).
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { argHelpers } from './lib/cli-args.mjs';
import { fakeLeads } from './fake-leads.mjs';
import { parseExposition, querySeries } from './metrics-dashboard/promql.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { fail, integer } = argHelpers('render-metrics-dashboard');
let values;
try {
  ({ values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '120' },
      out: { type: 'string', default: 'docs/images/metrics-dashboard.png' },
    },
  }));
} catch (error) {
  fail(error.message);
}
const seconds = integer('seconds', values.seconds, 20);
const SCRAPE_EVERY_MS = 3_000;
const RANGE_SECONDS = 30;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
for (const file of ['dist/main.js', 'dist/worker.js', 'dist/cli.js']) {
  if (!existsSync(join(root, file))) fail(`${file} is missing: run npm run build first`);
}
if (!existsSync(CHROMIUM_PATH)) fail(`no Chromium at ${CHROMIUM_PATH} (set CHROMIUM_PATH)`);

const serverUrl = new URL(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
);
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = '/campaign_api_metrics_demo';

/** A free TCP port of 127.0.0.1. */
async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** The receivers: `/ok` answers mostly 2xx with some 4xx, 5xx, slow answers and hangs; `/down` 503. */
function startReceiver() {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/down') return void res.writeHead(503).end();
      const roll = (n++ * 7919) % 100;
      if (roll < 6) return void res.writeHead(500).end();
      if (roll < 9) return void res.writeHead(404).end();
      if (roll < 11) return void setTimeout(() => res.writeHead(200).end(), 2_500); // timeout
      const delay = roll < 16 ? 300 + roll * 20 : 5 + (roll % 40);
      setTimeout(() => res.writeHead(200).end(), delay);
    });
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

async function main() {
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS campaign_api_metrics_demo WITH (FORCE)');
  await admin.end();

  const receiver = await startReceiver();
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;
  const [apiPort, apiMetrics, workerMetrics] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl.toString(),
    QUEUE_PREFIX: `metrics-demo-${process.pid}`,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '1500',
    WEBHOOK_RETRY_SCHEDULE: '2s,5s,10s,20s,40s',
    WEBHOOK_WORKER_CONCURRENCY: '40',
    WEBHOOK_MONITOR_INTERVAL_MS: '5000',
    RATE_LIMIT_API_PER_MIN: '100000',
  };
  const children = [];
  const start = (script, extra) => {
    const child = spawn(process.execPath, [join(root, script)], {
      env: { ...env, ...extra },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  };
  const cli = (...args) =>
    JSON.parse(
      execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args], {
        env,
        encoding: 'utf8',
      }),
    );

  try {
    start('dist/main.js', {
      PORT: String(apiPort),
      METRICS_PORT: String(apiMetrics),
      RUN_WORKER: 'false',
    });
    const api = `http://127.0.0.1:${apiPort}`;
    for (let i = 0; ; i++) {
      if ((await fetch(`${api}/health/ready`).catch(() => null))?.ok) break;
      if (i > 120) throw new Error('the API did not become ready');
      await sleep(500);
    }
    start('dist/worker.js', { METRICS_PORT: String(workerMetrics) });

    const account = cli('account', 'create', '--name', 'Metrics demo');
    const campaign = cli('campaign', 'create', '--account', String(account.id), '--name', 'Demo');
    const key = cli('api-key', 'create', '--account', String(account.id));
    cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      `${receiverUrl}/ok`,
      '--events',
      'lead.created',
    );
    cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      `${receiverUrl}/down`,
      '--events',
      'leads.bulk_created',
    );
    cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      `${receiverUrl}/off`,
      '--events',
      'lead.created',
      '--disabled',
    );

    const token = async () =>
      (
        await (
          await fetch(`${api}/api/v1/auth/api-key/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ api_key: key.api_key }),
          })
        ).json()
      ).access_token;
    let bearer = await token();

    const snapshots = [];
    const startedAt = Date.now();
    const scrape = async () => {
      const targets = [];
      for (const [instance, port] of [
        ['api', apiMetrics],
        ['worker', workerMetrics],
      ]) {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        targets.push({ instance, samples: parseExposition(text) });
      }
      snapshots.push({ t: (Date.now() - startedAt) / 1000, targets });
    };
    const scraper = setInterval(() => void scrape().catch(() => {}), SCRAPE_EVERY_MS);
    await scrape();

    // The workload: an upload every ~1.5 s, its size rising then falling; a few reads.
    let batch = 0;
    const workloadEnds = startedAt + (seconds - 20) * 1000;
    while (Date.now() < workloadEnds) {
      const phase = (Date.now() - startedAt) / (workloadEnds - startedAt);
      const count = Math.round(10 + 60 * Math.sin(Math.PI * phase));
      if (batch % 20 === 19) bearer = await token();
      await fetch(`${api}/api/v1/leads/upload`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify({
          campaign_id: campaign.id,
          compliance_acknowledged: true,
          leads: fakeLeads(count, { invalidShare: 0.08, duplicateShare: 0.05 }),
        }),
      });
      await fetch(`${api}/api/v1/webhooks/${campaign.id}/endpoints`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      if (batch % 5 === 0) await fetch(`${api}/api/v1/no-such-route`);
      batch += 1;
      await sleep(1_500);
    }
    // Let retries and the backlog drain for the rest of the run.
    await sleep(Math.max(0, startedAt + seconds * 1000 - Date.now()));
    clearInterval(scraper);
    await scrape();

    const dashboard = JSON.parse(
      readFileSync(join(root, 'deploy/grafana/campaign-api.dashboard.json'), 'utf8'),
    );
    const panels = dashboard.panels.map((panel) =>
      panel.type === 'row'
        ? { type: 'row', title: panel.title }
        : {
            type: 'panel',
            title: panel.title,
            w: panel.gridPos.w,
            unit: panel.fieldConfig?.defaults?.unit ?? 'short',
            stack: panel.fieldConfig?.defaults?.custom?.stacking?.mode === 'normal',
            series: panel.targets.flatMap((t) =>
              querySeries(t.expr, t.legendFormat, snapshots, RANGE_SECONDS),
            ),
          },
    );
    const view = {
      title: dashboard.title,
      subtitle: `${snapshots.length} scrapes of the API and a worker over ${seconds} s of a real run; rates over ${RANGE_SECONDS} s`,
      panels,
    };
    await screenshot(view, resolve(root, values.out));
    process.stdout.write(
      `${values.out}: ${panels.filter((p) => p.type === 'panel').length} panels, ${snapshots.length} scrapes\n`,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (c) => new Promise((done) => (c.exitCode !== null ? done() : c.on('exit', done))),
      ),
    );
    receiver.closeAllConnections();
    receiver.close();
  }
}

/** Bundles the chart code with Vite, opens the page in Chromium and saves a full-page PNG. */
async function screenshot(view, out) {
  const require = createRequire(join(root, 'web', 'package.json'));
  const { build } = await import(require.resolve('vite'));
  const bundle = await build({
    configFile: false,
    logLevel: 'warn',
    root: join(root, 'web'),
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      write: false,
      minify: true,
      lib: {
        entry: join(root, 'scripts/metrics-dashboard/charts-entry.mjs'),
        formats: ['iife'],
        name: 'MetricsDashboard',
        fileName: () => 'charts.js',
      },
    },
  });
  const code = (Array.isArray(bundle) ? bundle[0] : bundle).output[0].code;
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>
    body { margin: 0; background: #111217; color: #ccccdc; font: 13px system-ui, sans-serif; }
    main { width: 1600px; padding: 16px 20px; box-sizing: border-box; }
    header h1 { font-size: 20px; margin: 0 0 4px; } header p { margin: 0 0 8px; color: #909296; }
    .grid { display: grid; grid-template-columns: repeat(24, 1fr); gap: 10px; }
    h2 { font-size: 15px; margin: 10px 0 0; color: #e9ecef; }
    .panel { background: #181b1f; border: 1px solid #2c2e33; border-radius: 4px; padding: 8px; }
    .panel h3 { font-size: 13px; margin: 0 0 4px; font-weight: 600; }
    .empty { height: 230px; display: flex; align-items: center; justify-content: center; color: #666; margin: 0; }
    .recharts-legend-item-text { font-size: 12px; }
  </style></head><body><div id="root"></div>
  <script>${code.replace(/<\/script/g, '<\\/script')}</script>
  <script>window.renderDashboard(document.getElementById('root'), ${JSON.stringify(view).replace(/</g, '\\u003c')});</script>
  </body></html>`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setContent(html, { waitUntil: 'load' });
    await page.waitForSelector('.recharts-surface');
    if (errors.length > 0) throw new Error(`the page failed: ${errors.join('; ')}`);
    mkdirSync(dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: true });
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  process.stderr.write(`render-metrics-dashboard: ${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
