// memory: peak RSS of the API process during one N-lead upload over its idle RSS (VmRSS from
// /proc/<pid>/status every 5 ms), after a warm-up upload. Goal: ≤ +150 MB over idle.
import { log, sleep } from '../lib/harness.mjs';
import { makeLeads } from '../lib/leads.mjs';
import { rssMb } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { median } from '../lib/stats.mjs';

/** Peak RSS of the API during one upload over its idle RSS (after a warm-up upload). */
export async function measure(ctx) {
  const { sizes } = ctx;
  const pid = ctx.state.api.pid;
  await ctx.upload(ctx.campaigns.scale, makeLeads(sizes.warmupLeads), 'warm-up');
  await sleep(1_000);
  const idleSamples = [];
  for (let i = 0; i < 20; i++) {
    idleSamples.push(rssMb(pid));
    await sleep(5);
  }
  const idle = median(idleSamples);
  let peak = idle;
  const leads = makeLeads(sizes.rssLeads);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 5);
  try {
    await ctx.upload(ctx.campaigns.memory, leads, 'memory upload');
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssMb(pid));
  log(`memory: idle ${idle.toFixed(1)} MB, peak ${peak.toFixed(1)} MB`);
  return { idle_mb: idle, peak_mb: peak, leads: sizes.rssLeads };
}

/** The table's memory row, from the run's result `r` (lib/report.mjs `buildRows`). */
export function addRows(r, add) {
  const { peak_mb, idle_mb } = r.memory;
  add(`memory: API peak RSS, ${count(r.memory.leads)}-lead upload`, {
    ours: peak_mb,
    ceiling: idle_mb,
    unit: 'MB',
    label: 'idle',
    goal: '≤ +150 MB over idle',
    met: peak_mb == null || idle_mb == null ? null : peak_mb - idle_mb <= 150,
  });
}
