// transformed: what an endpoint's transformation (docs/webhooks.md#transformations) costs the
// dispatch. Not guarded by --guard; its goal is printed in the table.
//
// Two campaigns, each with one endpoint subscribed to lead.created at the harness's own
// receiver (a path each): one plain, one running the worked example of the README
// (examples/hubspot-transformation.js: lead.created reshaped into HubSpot's CRM v3 contact
// request), saved with the CLI's `endpoint set-transformation`. Each round uploads N leads to
// one campaign and times the upload sent → the N-th 2xx at its path; rounds alternate plain,
// transformed, transformed, plain… and each side's figure is the median of its rounds. Goal:
// transformed ≥ 0.7 of plain, in the same run.
//
// Then the attack: a plain endpoint of another campaign (the victim) gets a steady feed (uploads
// of LAG_LEADS leads every LAG_INTERVAL_MS); its lag p99 (the event's `timestamp` → the request
// received) is measured three times: alone; beside a campaign of ATTACK_ENDPOINTS endpoints, each
// given ATTACK_LEADS leads, whose code returns null at once (the baseline: the same endpoints and
// traffic); and beside the same endpoints whose code never ends (`while (true) {}`, written with
// SQL: saving would refuse it), so the sandbox has hundreds of calls that each run out their
// 50 ms. Goal: attacked ≤ 2 × baseline; the per-process budget (a slow lane limited to a share of
// the threads' time) keeps the victim flowing. The attack's endpoints are disabled at the end.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { cli } from '../lib/api-process.mjs';
import { log, note, root, sleep } from '../lib/harness.mjs';
import { makeLeads } from '../lib/leads.mjs';
import { cpuOfServices } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { median, percentile, ratioOf } from '../lib/stats.mjs';

/** The goals: transformed ≥ 0.7 × plain deliveries/s; others' lag p99 ≤ 2 × without the attack. */
export const TRANSFORMED_GOAL = 0.7;
export const ATTACK_LAG_GOAL = 2;
const ATTACK_ENDPOINTS = 100;
const ATTACK_LEADS = 3;
const LAG_UPLOADS = 10;
const LAG_LEADS = 50;
const LAG_INTERVAL_MS = 300;
const EXAMPLE = join(root, 'examples/hubspot-transformation.js');

/** A receiver answering 204, counting the requests of each path; checks the reshaped bodies. */
async function startReceiver() {
  const counts = new Map();
  const lags = new Map();
  let waiters = [];
  let misshapen = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      if (req.url === '/transformed' && typeof body?.properties?.phone !== 'string') misshapen++;
      if (typeof body?.timestamp === 'string') {
        const list = lags.get(req.url) ?? [];
        list.push(Date.now() - Date.parse(body.timestamp));
        lags.set(req.url, list);
      }
      res.statusCode = 204;
      res.end();
      counts.set(req.url, (counts.get(req.url) ?? 0) + 1);
      const at = performance.now();
      waiters = waiters.filter((w) => {
        if ((counts.get(w.path) ?? 0) < w.n) return true;
        w.resolve(at);
        return false;
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: (path) => `http://127.0.0.1:${server.address().port}${path}`,
    count: (path) => counts.get(path) ?? 0,
    misshapen: () => misshapen,
    /** The lags (ms) of `path`'s requests from the `from`-th on. */
    lagsOf: (path, from) => (lags.get(path) ?? []).slice(from),
    /** Resolves with when `path` had its n-th request, or null after `timeoutMs`. */
    waitFor(path, n, timeoutMs) {
      if ((counts.get(path) ?? 0) >= n) return Promise.resolve(performance.now());
      return new Promise((resolve) => {
        const waiter = { path, n, resolve };
        waiters.push(waiter);
        setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          resolve(null);
        }, timeoutMs);
      });
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function sideOf(ctx, receiver, name) {
  const campaign = await ctx.newCampaign(`transformed ${name}`);
  const endpoint = await cli(
    'endpoint',
    'create',
    '--campaign',
    String(campaign.id),
    '--url',
    receiver.url(`/${name}`),
    '--events',
    'lead.created',
  );
  if (name === 'transformed') {
    await cli('endpoint', 'set-transformation', String(endpoint.id), '--file', EXAMPLE);
  }
  return { name, path: `/${name}`, campaign, endpoint };
}

async function round(ctx, receiver, side, leads) {
  const expected = receiver.count(side.path) + leads;
  const cpu = await cpuOfServices(ctx);
  const startedAt = performance.now();
  const res = await ctx.upload(side.campaign, makeLeads(leads), `transformed ${side.name}`);
  if (!res.accepted) throw new Error(`transformed ${side.name}: upload refused`);
  const lastAt = await receiver.waitFor(side.path, expected, ctx.sizes.dispatchTimeoutMs);
  if (lastAt === null) {
    note(`transformed ${side.name}: ${receiver.count(side.path)} of ${expected} delivered`);
    await cpu.close();
    return { per_s: null, cpu_us_per_delivery: null };
  }
  return {
    per_s: leads / ((lastAt - startedAt) / 1000),
    cpu_us_per_delivery: await cpu.perItem(leads),
  };
}

/**
 * The victim's steady feed: LAG_UPLOADS uploads of LAG_LEADS leads, LAG_INTERVAL_MS apart; its
 * requests' lag p50/p99/max once all arrived.
 */
async function lagRun(ctx, receiver, victim) {
  const from = receiver.count(victim.path);
  const expected = from + LAG_UPLOADS * LAG_LEADS;
  for (let i = 0; i < LAG_UPLOADS; i++) {
    const res = await ctx.upload(victim.campaign, makeLeads(LAG_LEADS), 'transformed victim');
    if (!res.accepted) throw new Error('transformed victim: upload refused');
    await sleep(LAG_INTERVAL_MS);
  }
  if ((await receiver.waitFor(victim.path, expected, 120_000)) === null)
    note(
      `transformed attack: ${receiver.count(victim.path) - from} of ${expected - from} delivered`,
    );
  const lags = receiver.lagsOf(victim.path, from).sort((a, b) => a - b);
  return {
    deliveries: lags.length,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    max: lags.at(-1),
  };
}

/** The attack endpoints' code in the baseline run: it sends nothing, at once. */
const BENIGN_CODE = 'function handler(webhook) {\n  return null;\n}';
/** Their code in the attack: it never ends (saving would refuse it; it is written with SQL). */
const HOSTILE_CODE = 'function handler(webhook) {\n  while (true) {}\n}';

/** Puts version `version` with `code` in force on endpoints `ids`, with SQL. */
async function setAttackCode(ctx, ids, version, code) {
  await ctx.db.query(
    `INSERT INTO webhook_transformation_version (endpoint_id, version, code, created_by)
     SELECT unnest($1::int[]), $2, $3, 'bench'`,
    [ids, version, code],
  );
  await ctx.db.query(
    `UPDATE webhook_endpoint SET transformation = $3, transformation_version = $2
      WHERE id = ANY($1::int[])`,
    [ids, version, code],
  );
}

/** The attack's endpoints, each with {@link BENIGN_CODE} in force to begin with. */
async function attackEndpoints(ctx, receiver) {
  const campaign = await ctx.newCampaign('transformed attack');
  const ids = [];
  for (let i = 0; i < ATTACK_ENDPOINTS; i++) {
    const endpoint = await cli(
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      receiver.url('/attack'),
      '--events',
      'lead.created',
    );
    ids.push(endpoint.id);
  }
  await setAttackCode(ctx, ids, 1, BENIGN_CODE);
  return { campaign, ids };
}

export async function measure(ctx) {
  const leads = ctx.sizes.transformedLeads;
  const receiver = await startReceiver();
  try {
    const plain = await sideOf(ctx, receiver, 'plain');
    const transformed = await sideOf(ctx, receiver, 'transformed');
    const rounds = { plain: [], transformed: [] };
    for (let i = 0; i < ctx.sizes.transformedRounds; i++) {
      const sides = i % 2 === 0 ? [plain, transformed] : [transformed, plain];
      for (const side of sides) {
        const figures = await round(ctx, receiver, side, leads);
        rounds[side.name].push(figures);
        const cpu = figures.cpu_us_per_delivery;
        log(
          `transformed: ${side.name} ${Math.round(figures.per_s ?? 0)} deliveries/s` +
            (cpu ? ` (CPU µs each: API ${cpu.api}, PostgreSQL ${cpu.postgres})` : ''),
        );
      }
    }
    if (receiver.misshapen() > 0)
      note(`transformed: ${receiver.misshapen()} requests without the reshaped body`);
    const perS = (name) => median(rounds[name].map((r) => r.per_s).filter((v) => v != null));
    // The attack: the victim's lag alone, then beside the never-ending transformations.
    const victim = await sideOf(ctx, receiver, 'victim');
    const attack = await attackEndpoints(ctx, receiver);
    const alone = await lagRun(ctx, receiver, victim);
    // Baseline: the same endpoints and traffic with code that returns at once.
    if (!(await ctx.upload(attack.campaign, makeLeads(ATTACK_LEADS), 'attack baseline')).accepted)
      throw new Error('transformed attack: upload refused');
    const benign = await lagRun(ctx, receiver, victim);
    // The attack: their code never ends.
    await setAttackCode(ctx, attack.ids, 2, HOSTILE_CODE);
    if (!(await ctx.upload(attack.campaign, makeLeads(ATTACK_LEADS), 'attack')).accepted)
      throw new Error('transformed attack: upload refused');
    const attacked = await lagRun(ctx, receiver, victim);
    const { rows } = await ctx.db.query(
      `SELECT count(*) FILTER (WHERE a.error LIKE 'transformation_error:%')::int AS failed,
              count(*)::int AS attempts
         FROM webhook_delivery_attempt a WHERE a.endpoint_id = ANY($1::int[])`,
      [attack.ids],
    );
    await ctx.db.query(
      `UPDATE webhook_endpoint SET is_enabled = false, disabled_reason = 'manual', disabled_at = now()
        WHERE id = ANY($1::int[])`,
      [attack.ids],
    );
    log(
      `transformed attack: victim lag p99 ${alone.p99} ms alone, ${benign.p99} ms beside ` +
        `${ATTACK_ENDPOINTS} endpoints whose code returns at once, ${attacked.p99} ms beside ` +
        `the same whose code never ends (${rows[0].failed} of their attempts stopped so far)`,
    );
    return {
      leads,
      rounds: ctx.sizes.transformedRounds,
      plain_per_s: perS('plain'),
      transformed_per_s: perS('transformed'),
      plain_rounds: rounds.plain,
      transformed_rounds: rounds.transformed,
      misshapen: receiver.misshapen(),
      attack: {
        endpoints: ATTACK_ENDPOINTS,
        leads_each: ATTACK_LEADS,
        victim_alone_lag_ms: alone,
        victim_benign_lag_ms: benign,
        victim_attacked_lag_ms: attacked,
        hostile_attempts: rows[0].attempts,
        hostile_attempts_stopped: rows[0].failed,
      },
    };
  } finally {
    await receiver.close();
  }
}

/** The table's row (not guarded). */
export function addRows(r, add, sizes) {
  const t = r.transformed;
  add(`transformed: HubSpot example vs none (${count(sizes.transformedLeads)} leads)`, {
    ours: t.transformed_per_s,
    ceiling: t.plain_per_s,
    unit: 'deliveries/s',
    label: 'the same to an endpoint without a transformation',
    goal: `≥ ${TRANSFORMED_GOAL} of untransformed`,
    met:
      t.transformed_per_s == null
        ? null
        : ratioOf(t.transformed_per_s, t.plain_per_s) >= TRANSFORMED_GOAL,
  });
  const a = t.attack;
  add(`transformed: lag p99 beside ${a.endpoints} endpoints whose code never ends`, {
    ours: a.victim_attacked_lag_ms.p99,
    ceiling: a.victim_benign_lag_ms.p99,
    unit: 'ms',
    label: 'the same endpoints and traffic, their code returning at once',
    goal: `≤ ${ATTACK_LAG_GOAL} × without`,
    met:
      a.victim_attacked_lag_ms.p99 == null
        ? null
        : ratioOf(a.victim_attacked_lag_ms.p99, a.victim_benign_lag_ms.p99) <= ATTACK_LAG_GOAL,
  });
}
