// token: `POST /auth/api-key/token` exchanges/s at READ_CONNECTIONS, against the goal
// TOKEN_GOAL_PER_S (no ceiling is measured for it) and, guarded (≥ GOALS.token), as a share of
// our own health reads/s measured just before (measures/reads.mjs).
import { log } from '../lib/harness.mjs';
import { warmLoad } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { GOALS, READ_CONNECTIONS, TOKEN_GOAL_PER_S } from '../lib/settings.mjs';
import { ratioOf } from '../lib/stats.mjs';

/** Token exchanges at READ_CONNECTIONS (one API key, as many exchanges as it can). */
export async function measure(ctx) {
  const result = await warmLoad(
    'token exchange',
    {
      url: `${ctx.base}/api/v1/auth/api-key/token`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: ctx.apiKey }),
      connections: READ_CONNECTIONS,
    },
    ctx.sizes.tokenSeconds,
    ctx.sizes.loadWarmupSeconds,
    ctx.state.api.pid,
  );
  log(
    `token exchange: ${Math.round(result.requests_per_s)}/s ` +
      `(${result.cpu_us_per_request?.toFixed(0)} µs CPU each)`,
  );
  return result;
}

/** The table's token rows: against the absolute goal, and against our health reads (guarded). */
export function addRows(r, add) {
  const conns = `${READ_CONNECTIONS} conns`;
  const { ours } = r.reads;
  add(`token exchange (${conns})`, {
    ours: r.tokenLoad.requests_per_s,
    ceiling: TOKEN_GOAL_PER_S,
    unit: 'exchanges/s',
    label: 'the goal, not measured',
    goal: `≥ ${count(TOKEN_GOAL_PER_S)}/s`,
    met: r.tokenLoad.requests_per_s >= TOKEN_GOAL_PER_S,
  });
  const tokenRatio = ratioOf(r.tokenLoad.requests_per_s, ours.requests_per_s);
  add(`token exchange vs our health reads (${conns})`, {
    ours: r.tokenLoad.requests_per_s,
    ceiling: ours.requests_per_s,
    unit: 'exchanges/s',
    label: 'our health reads',
    goal: `≥ ${GOALS.token} of our health reads`,
    met: tokenRatio == null ? null : tokenRatio >= GOALS.token,
    guard: GOALS.token,
  });
}
