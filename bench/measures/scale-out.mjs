// scale-out: a second `node dist/main.js` (API + worker) on the first one's port
// (HTTP_REUSE_PORT): health reads at READ_CONNECTIONS and one N-lead dispatch, against one
// process (measures/reads.mjs, measures/dispatch.mjs). No goal.
import { startApi } from '../lib/api-process.mjs';
import { log, stopChild } from '../lib/harness.mjs';
import { warmLoad } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { READ_CONNECTIONS } from '../lib/settings.mjs';
import { dispatchUpload } from './dispatch.mjs';

/**
 * Two processes instead of one: a second `node dist/main.js` (API + worker) on the first one's
 * port (HTTP_REUSE_PORT), then the health reads at READ_CONNECTIONS (the kernel spreads the
 * connections over both) and one N-lead dispatch (both workers take jobs). Stops it after.
 */
export async function measure(ctx) {
  const port = Number(new URL(ctx.base).port);
  const second = await startApi(port);
  ctx.state.secondApi = second.api;
  try {
    const reads = await warmLoad(
      'scale-out: reads (two processes)',
      {
        url: `${ctx.base}${ctx.healthPath}`,
        headers: { authorization: `Bearer ${ctx.token}` },
        connections: READ_CONNECTIONS,
      },
      ctx.sizes.readSeconds,
      ctx.sizes.loadWarmupSeconds,
      [ctx.state.api.pid, second.api.pid],
    );
    const dispatch = await dispatchUpload(ctx);
    log(
      `scale-out (two processes): health ${Math.round(reads.requests_per_s)} req/s, ` +
        `dispatch ${Math.round(dispatch.per_s ?? 0)} deliveries/s`,
    );
    return { processes: 2, reads, dispatch };
  } finally {
    await stopChild(second.api, 'SIGTERM', 35_000);
    ctx.state.secondApi = null;
  }
}

/** The table's scale-out rows (only when it ran): against one process's health and dispatch. */
export function addRows(r, add, sizes) {
  if (!r.scaleOut) return;
  add(`scale-out: health, two processes (${READ_CONNECTIONS} conns)`, {
    ours: r.scaleOut.reads.requests_per_s,
    ceiling: r.reads.ours.requests_per_s,
    unit: 'req/s',
    label: 'one process',
  });
  add(`scale-out: dispatch, two processes (${count(sizes.dispatchLeads)} leads)`, {
    ours: r.scaleOut.dispatch.per_s,
    ceiling: r.dispatch.per_s,
    unit: 'deliveries/s',
    label: 'one process',
  });
}
