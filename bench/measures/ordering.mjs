// ordering: what per-lead ordering (docs/webhooks.md#per-lead-ordering) costs. Not guarded.
//
// (a) Throughput: N leads, each with three events (its lead.created from an upload, then
//     lead.status_changed s1 and s2, recorded right after the upload by the compiled publisher,
//     100 leads' s1 then s2 per transaction), to a campaign whose one endpoint is ordered
//     (`per_lead`), and the same to a campaign whose endpoint is not: deliveries/s of each, from
//     the upload sent to the 3N-th 2xx at the receiver. Rounds alternate unordered, ordered,
//     ordered, unordered… and each side's figure is the median of its rounds. Goal: ordered ≥ 0.8
//     of unordered.
// (b) Lag beside a failing lead: on an ordered endpoint, N leads with the same three events each,
//     fed in uploads spread over a few seconds, alone and then with one lead more whose
//     deliveries the receiver always answers 500 until their retries run out (each of its three
//     is tried 5 times; the next one of the lead goes once it failed for good). The others' lag
//     p99, event recorded (its body's `timestamp`) → 2xx received, with the failing lead beside
//     them ÷ without. Goal ≤ 1.5.
//
// The step restarts the API with a short retry schedule (RETRY_SCHEDULE: the failing lead's
// deliveries fail for good in seconds, not the default's hours) and restarts it as it was after.
// The receiver runs in the harness (one HTTP server, a path per endpoint); the events come from
// scripts/emit-lead-events.mjs, a child process (no HTTP route records lead.status_changed).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { cli, serviceEnv, startApi } from '../lib/api-process.mjs';
import { ask, log, mapLimit, note, root, sleep, stopChild, track } from '../lib/harness.mjs';
import { makeLeads } from '../lib/leads.mjs';
import { cpuOfServices } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { median, percentile, ratioOf } from '../lib/stats.mjs';

/** The API's retry schedule during this step: 5 attempts in 1.5 s. */
const RETRY_SCHEDULE = '100ms,200ms,400ms,800ms';
/** The goals: ordered ≥ 0.8 × unordered deliveries/s; others' lag p99 ≤ 1.5 × without. */
export const ORDERING_GOALS = { throughput: 0.8, lag: 1.5 };
const EVENTS = 'lead.created,lead.status_changed';
/** Leads per transaction of status changes. */
const LEADS_PER_TRANSACTION = 100;

/**
 * The receiver: answers 204, or 500 to the leads in `failing` (by phone for lead.created, by
 * lead id for the rest), and notes for every request its path, when it was answered, its lag
 * (answer − the event's `timestamp`) and its lead's position (0 lead.created, k for sk).
 */
async function startReceiver() {
  const answers = [];
  const failingPhones = new Set();
  const failingLeads = new Set();
  let waiters = [];
  const okCount = new Map();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { type, timestamp, data } = JSON.parse(Buffer.concat(chunks).toString());
      const leadId = Number(type === 'lead.created' ? data.id : data.lead_id);
      const failing =
        type === 'lead.created' ? failingPhones.has(data.phone) : failingLeads.has(leadId);
      const status = failing ? 500 : 204;
      res.statusCode = status;
      res.end();
      const at = Date.now();
      const position = type === 'lead.created' ? 0 : Number(String(data.status).slice(1));
      answers.push({
        path: req.url,
        at,
        lagMs: at - Date.parse(timestamp),
        leadId,
        position,
        status,
      });
      if (status < 300) okCount.set(req.url, (okCount.get(req.url) ?? 0) + 1);
      waiters = waiters.filter((w) => {
        if ((okCount.get(w.path) ?? 0) < w.n) return true;
        w.resolve(true);
        return false;
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: (path) => `http://127.0.0.1:${server.address().port}${path}`,
    answers,
    failingPhones,
    failingLeads,
    ok: (path) => okCount.get(path) ?? 0,
    /** Resolves true once `path` has had `n` 2xx answers in all, false after `timeoutMs`. */
    waitFor(path, n, timeoutMs) {
      if ((okCount.get(path) ?? 0) >= n) return Promise.resolve(true);
      return new Promise((resolve) => {
        const waiter = { path, n, resolve };
        waiters.push(waiter);
        setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs);
      });
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** scripts/emit-lead-events.mjs as an IPC child with the bench's service environment. */
async function startEmitter() {
  const child = track(fork(join(root, 'scripts/emit-lead-events.mjs'), [], { env: serviceEnv() }));
  await new Promise((resolve, reject) => {
    child.once('message', (m) => (m?.type === 'ready' ? resolve() : reject(new Error(m))));
    child.once('exit', (code) => reject(new Error(`the event emitter exited with ${code}`)));
  });
  return {
    /** Records s1 then s2 for each of `leadIds`, LEADS_PER_TRANSACTION leads a transaction. */
    async statusChanges(campaignId, leadIds) {
      const chains = [];
      for (let i = 0; i < leadIds.length; i += LEADS_PER_TRANSACTION) {
        const group = leadIds.slice(i, i + LEADS_PER_TRANSACTION);
        const inputs = ['s1', 's2'].flatMap((status, k) =>
          group.map((leadId) => ({
            type: 'lead.status_changed',
            data: {
              lead_id: leadId,
              campaign_id: campaignId,
              previous_status: k === 0 ? null : 's1',
              status,
              changed_at: new Date().toISOString(),
            },
          })),
        );
        chains.push([inputs]);
      }
      const done = await ask(child, { cmd: 'emit', campaignId, chains, lanes: 2 }, 60_000);
      if (done.error) throw new Error(`event emitter: ${done.error}`);
      return done;
    },
    close: () => stopChild(child, 'SIGTERM', 10_000),
  };
}

/** A campaign with one endpoint (lead.created and lead.status_changed) to `url`. */
async function campaignWith(ctx, name, url, ordering) {
  const campaign = await ctx.newCampaign(name);
  const endpoint = await cli(
    'endpoint',
    'create',
    '--campaign',
    String(campaign.id),
    '--url',
    url,
    '--events',
    EVENTS,
    '--ordering',
    ordering,
  );
  return { campaign, endpoint };
}

/**
 * Uploads `leads` to `campaign`; their ids (in id order, which is not the upload's order) and
 * the id of each phone.
 */
async function uploadLeads(ctx, campaign, leads, label) {
  const res = await ctx.upload(campaign, leads, label);
  if (!res.accepted) throw new Error(`${label}: upload refused`);
  const { rows } = await ctx.db.query(
    'SELECT id, phone FROM lead WHERE import_id = $1 ORDER BY id',
    [res.accepted.import_id],
  );
  return {
    res,
    ids: rows.map((r) => Number(r.id)),
    idOfPhone: new Map(rows.map((r) => [r.phone, Number(r.id)])),
  };
}

/** Answers of `path` that step back to an older event of their lead (2xx, by answer time). */
function orderViolations(answers, path) {
  const newest = new Map();
  let violations = 0;
  for (const a of answers) {
    if (a.path !== path || a.status >= 300) continue;
    if (a.position < (newest.get(a.leadId) ?? -1)) violations++;
    newest.set(a.leadId, Math.max(a.position, newest.get(a.leadId) ?? -1));
  }
  return violations;
}

/**
 * (a): one round of N leads × 3 events to `side`'s campaign: deliveries/s, and the CPU time per
 * delivery of the API, of the database's backends (the emitter's included) and of Redis.
 */
async function throughputRound(ctx, receiver, emitter, side, leads) {
  const expected = receiver.ok(side.path) + leads * 3;
  const cpu = await cpuOfServices(ctx);
  const startedAt = Date.now();
  const { ids } = await uploadLeads(ctx, side.campaign, makeLeads(leads), `ordering ${side.name}`);
  await emitter.statusChanges(side.campaign.id, ids);
  const done = await receiver.waitFor(side.path, expected, 120_000);
  if (!done) note(`ordering ${side.name}: ${receiver.ok(side.path)} of ${expected} delivered`);
  const last = receiver.answers.findLast((a) => a.path === side.path && a.status < 300);
  return {
    per_s: (leads * 3) / ((last.at - startedAt) / 1000),
    cpu_us_per_delivery: await cpu.perItem(leads * 3),
  };
}

/**
 * (b): N leads × 3 events fed in `uploads` uploads `intervalMs` apart to `path`'s ordered
 * campaign, the first upload with one failing lead more when `withFailing`; the others' lag
 * figures, and how long the failing lead's deliveries took to end.
 */
async function lagRun(ctx, receiver, emitter, side, sizes, withFailing) {
  const { orderingLagLeads: leads, orderingLagUploads: uploads } = sizes;
  const from = receiver.answers.length;
  const expected = receiver.ok(side.path) + leads * 3;
  const startedAt = Date.now();
  let failingId = null;
  const feeds = [];
  for (let i = 0; i < uploads; i++) {
    const batch = makeLeads(leads / uploads);
    const failing = withFailing && i === 0 ? makeLeads(1)[0] : null;
    if (failing) {
      receiver.failingPhones.add(failing.phone);
      batch.unshift(failing);
    }
    const { ids, idOfPhone } = await uploadLeads(
      ctx,
      side.campaign,
      batch,
      `ordering lag ${side.name}`,
    );
    if (failing) {
      failingId = idOfPhone.get(failing.phone);
      receiver.failingLeads.add(failingId);
    }
    feeds.push(emitter.statusChanges(side.campaign.id, ids));
    await Promise.all([feeds.at(-1), sleep(sizes.orderingLagIntervalMs)]);
  }
  await Promise.all(feeds);
  if (!(await receiver.waitFor(side.path, expected, 60_000)))
    note(`ordering lag ${side.name}: ${receiver.ok(side.path)} of ${expected} delivered`);
  let failingEndedMs = null;
  if (failingId !== null) {
    // Until its three deliveries failed for good (the third goes once the second ended).
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
      const { rows } = await ctx.db.query(
        `SELECT count(*) FILTER (WHERE status = 'failed')::int AS failed FROM webhook_delivery
          WHERE endpoint_id = $1 AND lead_id = $2`,
        [side.endpoint.id, failingId],
      );
      if (rows[0].failed === 3) {
        failingEndedMs = Date.now() - startedAt;
        break;
      }
    }
    if (failingEndedMs === null)
      note(`ordering lag: the failing lead's deliveries did not all fail`);
  }
  const mine = receiver.answers.slice(from).filter((a) => a.path === side.path);
  const lags = mine
    .filter((a) => a.status < 300 && a.leadId !== failingId)
    .map((a) => a.lagMs)
    .sort((a, b) => a - b);
  const others = mine.filter((a) => a.status < 300 && a.leadId !== failingId);
  const span = (others.at(-1).at - startedAt) / 1000;
  return {
    deliveries: lags.length,
    lag_ms: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.at(-1) },
    seconds: +span.toFixed(2),
    failing_requests: failingId === null ? 0 : mine.filter((a) => a.leadId === failingId).length,
    failing_ended_after_s: failingEndedMs === null ? null : +(failingEndedMs / 1000).toFixed(2),
  };
}

export async function measure(ctx) {
  const { sizes } = ctx;
  const leads = sizes.orderingLeads;
  const receiver = await startReceiver();
  await stopChild(ctx.state.api, 'SIGTERM', 35_000);
  const started = await startApi(0, { WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE });
  ctx.state.api = started.api;
  ctx.base = started.base;
  const emitter = await startEmitter();
  try {
    const [unordered, ordered, lagAlone, lagWith] = await mapLimit(
      [
        ['unordered', 'none'],
        ['ordered', 'per_lead'],
        ['lag-alone', 'per_lead'],
        ['lag-with-failing', 'per_lead'],
      ],
      2,
      async ([name, ordering]) => ({
        name,
        path: `/${name}`,
        ...(await campaignWith(ctx, `ordering ${name}`, receiver.url(`/${name}`), ordering)),
      }),
    );
    // (a) Rounds alternate: U O | O U | U O … so neither side always runs first.
    const rounds = { unordered: [], ordered: [] };
    for (let round = 0; round < sizes.orderingRounds; round++) {
      const sides = round % 2 === 0 ? [unordered, ordered] : [ordered, unordered];
      for (const side of sides) {
        const figures = await throughputRound(ctx, receiver, emitter, side, leads);
        rounds[side.name].push(figures);
        const cpu = figures.cpu_us_per_delivery;
        log(
          `ordering: ${side.name} ${Math.round(figures.per_s)} deliveries/s (${count(leads * 3)}; ` +
            `CPU µs each: API ${cpu.api}, PostgreSQL ${cpu.postgres}, Redis ${cpu.redis})`,
        );
      }
    }
    const perS = (name) => median(rounds[name].map((r) => r.per_s));
    // (b) Alone, then with the failing lead.
    const alone = await lagRun(ctx, receiver, emitter, lagAlone, sizes, false);
    const withFailing = await lagRun(ctx, receiver, emitter, lagWith, sizes, true);
    log(
      `ordering: others' lag p99 ${alone.lag_ms.p99} ms alone, ${withFailing.lag_ms.p99} ms ` +
        `beside a failing lead (its deliveries ended after ${withFailing.failing_ended_after_s} s)`,
    );
    const violations = [ordered, lagAlone, lagWith].reduce(
      (sum, side) => sum + orderViolations(receiver.answers, side.path),
      0,
    );
    if (violations > 0)
      note(`ordering: ${violations} 2xx answers to an older event after a newer one`);
    return {
      // The machine is shared: the figures move with its load.
      load_average_1m: +os.loadavg()[0].toFixed(2),
      leads,
      events_per_lead: 3,
      rounds: sizes.orderingRounds,
      unordered_per_s: perS('unordered'),
      ordered_per_s: perS('ordered'),
      unordered_rounds: rounds.unordered,
      ordered_rounds: rounds.ordered,
      lag_leads: sizes.orderingLagLeads,
      lag_alone: alone,
      lag_with_failing: withFailing,
      order_violations: violations,
    };
  } finally {
    await emitter.close();
    await receiver.close();
    await stopChild(ctx.state.api, 'SIGTERM', 35_000);
    const restarted = await startApi(0);
    ctx.state.api = restarted.api;
    ctx.base = restarted.base;
  }
}

/** The table's ordering rows (not guarded). */
export function addRows(r, add, sizes) {
  const o = r.ordering;
  add(`ordering: per_lead vs none (${count(sizes.orderingLeads)} leads × 3 events)`, {
    ours: o.ordered_per_s,
    ceiling: o.unordered_per_s,
    unit: 'deliveries/s',
    label: 'the same to an unordered endpoint',
    goal: `≥ ${ORDERING_GOALS.throughput} of unordered`,
    met:
      o.ordered_per_s == null
        ? null
        : ratioOf(o.ordered_per_s, o.unordered_per_s) >= ORDERING_GOALS.throughput,
  });
  add(`ordering: others' lag p99 beside a failing lead (${count(sizes.orderingLagLeads)} leads)`, {
    ours: o.lag_with_failing.lag_ms.p99,
    ceiling: o.lag_alone.lag_ms.p99,
    unit: 'ms',
    label: 'the same run without the failing lead',
    goal: `≤ ${ORDERING_GOALS.lag} × without`,
    met:
      o.lag_with_failing.lag_ms.p99 == null
        ? null
        : ratioOf(o.lag_with_failing.lag_ms.p99, o.lag_alone.lag_ms.p99) <= ORDERING_GOALS.lag,
  });
}
