// dispatch: deliveries/s of one N-lead upload to a campaign with one endpoint subscribed to
// lead.created (202 → N-th delivery at the receiver), against raw undici POSTs of a real
// delivered body to the same receiver at CEILING_CONCURRENCY. Guarded: ≥ GOALS.dispatch of raw
// undici. `dispatchUpload` is also the dispatch half of scale-out and observability.
import { Agent, request } from 'undici';
import { ask, log, note, nowMs } from '../lib/harness.mjs';
import { makeLeads } from '../lib/leads.mjs';
import { cpuOfServices } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { CEILING_CONCURRENCY, GOALS } from '../lib/settings.mjs';
import { median, ratioOf } from '../lib/stats.mjs';

/** The fewest raw POSTs a ceiling run sends (the quick run's uploads are smaller). */
const CEILING_MIN_POSTS = 3_000;

/** One N-lead upload to "hooks": 202 → N-th delivery at the receiver. */
export async function dispatchUpload(ctx) {
  const total = ctx.sizes.dispatchLeads;
  const dispatch = { leads: total };
  const before = ctx.received;
  const idsBefore = (await ctx.waitFor(0, 0, 1_000)).distinctIds;
  const cpu = await cpuOfServices(ctx);
  const res = await ctx.upload(ctx.campaigns.hooks, makeLeads(total), 'dispatch upload');
  if (res.accepted) {
    const answer = await ctx.waitFor(before + total, before, ctx.sizes.dispatchTimeoutMs);
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

/**
 * Raw undici POSTs of one delivered webhook (body and headers) to the same receiver,
 * CEILING_CONCURRENCY at a time: POSTs/s from the first sent to the last received.
 */
async function ceilingRate(ctx, total) {
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
  return {
    per_s: (answer.count - ceilingBefore) / ((answer.lastAt - startedAt) / 1000),
    body_bytes: Buffer.byteLength(sample.body),
  };
}

/**
 * `sizes.dispatchRounds` rounds, each one N-lead upload to "hooks" (202 → N-th delivery) then
 * the ceiling: raw undici POSTs, as many (at least CEILING_MIN_POSTS, so that a short run's
 * connection set-up does not decide it). One round (the full run): its figures. Several
 * (--quick, for --guard): the first round's details, `per_s` and `ceiling_per_s` the medians of
 * the rounds, each round's figures in `rounds`; --guard takes the median of the rounds' own
 * ratios, each ours beside the ceiling measured right after it, under the same load.
 */
export async function measure(ctx) {
  const total = ctx.sizes.dispatchLeads;
  const rounds = [];
  let dispatch = null;
  for (let i = 1; i <= (ctx.sizes.dispatchRounds ?? 1); i++) {
    const round = await dispatchUpload(ctx);
    const cpu = round.cpu_us_per_delivery;
    log(
      `dispatch: ${Math.round(round.per_s ?? 0)} deliveries/s` +
        (cpu
          ? ` (CPU µs each: API ${cpu.api}, PostgreSQL ${cpu.postgres}, Redis ${cpu.redis})`
          : ''),
    );
    const ceiling = await ceilingRate(ctx, Math.max(total, CEILING_MIN_POSTS));
    log(`dispatch ceiling: ${Math.round(ceiling.per_s)} POSTs/s`);
    rounds.push({ per_s: round.per_s ?? null, ceiling_per_s: ceiling.per_s });
    dispatch ??= { ...round, body_bytes: ceiling.body_bytes };
  }
  const middle = (key) => median(rounds.map((r) => r[key]).filter((v) => v != null));
  dispatch.per_s = middle('per_s');
  dispatch.ceiling_per_s = middle('ceiling_per_s');
  if (rounds.length > 1) dispatch.rounds = rounds;
  return dispatch;
}

/** The table's dispatch row (guarded). */
export function addRows(r, add, sizes) {
  add(`dispatch (${count(sizes.dispatchLeads)} leads, 202 → last delivery)`, {
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
    baseline: 'dispatch',
    guardRatio: r.dispatch.rounds
      ? median(r.dispatch.rounds.map((round) => ratioOf(round.per_s, round.ceiling_per_s) ?? 0))
      : ratioOf(r.dispatch.per_s, r.dispatch.ceiling_per_s),
  });
}
