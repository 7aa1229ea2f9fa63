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
import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { cli } from '../lib/api-process.mjs';
import { log, note, root } from '../lib/harness.mjs';
import { makeLeads } from '../lib/leads.mjs';
import { cpuOfServices } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { median, ratioOf } from '../lib/stats.mjs';

/** The goal: transformed ≥ 0.7 × plain deliveries/s. */
export const TRANSFORMED_GOAL = 0.7;
const EXAMPLE = join(root, 'examples/hubspot-transformation.js');

/** A receiver answering 204, counting the requests of each path; checks the reshaped bodies. */
async function startReceiver() {
  const counts = new Map();
  let waiters = [];
  let misshapen = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/transformed') {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        if (typeof body?.properties?.phone !== 'string') misshapen++;
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
    return {
      leads,
      rounds: ctx.sizes.transformedRounds,
      plain_per_s: perS('plain'),
      transformed_per_s: perS('transformed'),
      plain_rounds: rounds.plain,
      transformed_rounds: rounds.transformed,
      misshapen: receiver.misshapen(),
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
}
