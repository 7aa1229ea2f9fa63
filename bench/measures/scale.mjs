// scale: health p50/p99 at SCALE_CONNECTIONS on an endpoint with 0 recorded attempts vs one with
// `sizes.attempts` attempts inserted with SQL (flat ≈ 1; SCALE_FLAT_MAX for the met? column).
import { request } from 'undici';
import { log, note, nowMs } from '../lib/harness.mjs';
import { warmLoad } from '../lib/load.mjs';
import { count } from '../lib/report.mjs';
import { SCALE_CONNECTIONS, SCALE_FLAT_MAX } from '../lib/settings.mjs';
import { ratioOf } from '../lib/stats.mjs';

/** Health read of an endpoint with 0 attempts vs one with sizes.attempts (inserted with SQL). */
export async function measure(ctx) {
  const { sizes } = ctx;
  const { empty, full } = ctx.endpoints;
  const scale = { attempts: sizes.attempts };
  const insertStarted = nowMs();
  await ctx.db.query(
    `INSERT INTO webhook_delivery_attempt
       (endpoint_id, delivery_id, message_id, attempted_at, duration_ms, status_code, success)
     SELECT $1, NULL, 'bench', now(), 10, 200, true FROM generate_series(1, $2::int)`,
    [full.id, sizes.attempts],
  );
  await ctx.db.query(
    `UPDATE webhook_endpoint SET total_deliveries = $2, successful_deliveries = $2,
       total_duration_ms = $3, last_delivery_at = now(), last_delivery_is_successful = true
     WHERE id = $1`,
    [full.id, sizes.attempts, sizes.attempts * 10],
  );
  scale.insert_seconds = (nowMs() - insertStarted) / 1000;
  // Vacuum now, so autovacuum does not wake up for the new rows in the middle of the reads.
  const vacuumStarted = nowMs();
  await ctx.db.query('VACUUM (ANALYZE) webhook_delivery_attempt');
  scale.vacuum_seconds = (nowMs() - vacuumStarted) / 1000;
  log(
    `scale: ${sizes.attempts} attempts inserted in ${scale.insert_seconds.toFixed(1)} s, ` +
      `vacuumed in ${scale.vacuum_seconds.toFixed(1)} s`,
  );

  const url = (endpoint) =>
    `${ctx.base}/api/v1/webhooks/${ctx.campaigns.scale.id}/endpoints/${endpoint.id}/health`;
  const check = await request(url(full), { headers: { authorization: `Bearer ${ctx.token}` } });
  const checkText = await check.body.text();
  if (check.statusCode !== 200 || JSON.parse(checkText).total_deliveries !== sizes.attempts) {
    note(`scale: health of the full endpoint answered ${check.statusCode}: ${checkText}`);
  }
  const options = {
    headers: { authorization: `Bearer ${ctx.token}` },
    connections: SCALE_CONNECTIONS,
  };
  scale.empty = await warmLoad(
    'scale (0 attempts)',
    { ...options, url: url(empty) },
    sizes.scaleSeconds,
    sizes.loadWarmupSeconds,
  );
  scale.full = await warmLoad(
    `scale (${sizes.attempts} attempts)`,
    { ...options, url: url(full) },
    sizes.scaleSeconds,
    sizes.loadWarmupSeconds,
  );
  return scale;
}

/** The table's scale rows: p50, and p99 against "flat". */
export function addRows(r, add, sizes) {
  const { empty, full } = r.scale;
  const attempts = `${count(sizes.attempts)} attempts`;
  for (const p of ['p50', 'p99']) {
    const ratio = ratioOf(full[`${p}_ms`], empty[`${p}_ms`]);
    add(`scale: health ${p}, ${attempts} (${SCALE_CONNECTIONS} conns)`, {
      ours: full[`${p}_ms`],
      ceiling: empty[`${p}_ms`],
      unit: 'ms',
      label: '0 attempts',
      ratio,
      ...(p === 'p99' && {
        goal: `≈ 1 (flat; ≤ ${SCALE_FLAT_MAX})`,
        met: ratio == null ? null : ratio <= SCALE_FLAT_MAX,
      }),
    });
  }
}
