// latency: upload 202 → first delivery at the receiver, p50/p99 over single-lead uploads, against
// the goals (LATENCY_GOALS_MS: p50 ≤ 20 ms, p99 ≤ 100 ms). Not guarded.
import { log, note } from '../lib/harness.mjs';
import { makeLeads } from '../lib/leads.mjs';
import { LATENCY_GOALS_MS } from '../lib/settings.mjs';
import { percentile } from '../lib/stats.mjs';

/** Single-lead uploads to "hooks": 202 received → first delivery at the receiver (ms). */
export async function measure(ctx) {
  const warm = await ctx.upload(ctx.campaigns.hooks, makeLeads(1), 'latency warm-up');
  if (warm.accepted) await ctx.waitFor(ctx.received + 1, ctx.received, 10_000);
  const latencies = [];
  for (let i = 1; i <= ctx.sizes.latencyUploads; i++) {
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

/** The table's latency rows: p50 and p99 against their goals. */
export function addRows(r, add) {
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
}
