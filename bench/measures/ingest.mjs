// ingest: leads/s of `POST /api/v1/leads/upload` with N-lead requests (median over runs, a fresh
// campaign without webhook endpoints each), against PostgreSQL's raw `COPY ... FROM STDIN
// (FORMAT csv)` of the same rows into a fresh table shaped like `lead` (same unique index on
// (campaign_id, phone)), and against the naive peer: one INSERT per lead, sequential awaits, in
// one transaction. Guarded: ≥ GOALS.ingest of COPY.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import copyStreams from 'pg-copy-streams';
import { log, note, nowMs } from '../lib/harness.mjs';
import { makeLeads } from '../lib/leads.mjs';
import { count } from '../lib/report.mjs';
import { GOALS } from '../lib/settings.mjs';
import { median, ratioOf } from '../lib/stats.mjs';

// ---------------------------------------------------------------------------------------------
// PostgreSQL ceilings: COPY and the naive per-row INSERT, into a fresh table shaped like `lead`
// ---------------------------------------------------------------------------------------------

const LEAD_COLUMNS =
  'campaign_id, phone, first_name, last_name, email, company, title, source, import_id';
const leadLikeTable = (name) => `
  CREATE TABLE ${name} (
    id BIGSERIAL PRIMARY KEY,
    campaign_id integer NOT NULL,
    phone varchar(16) NOT NULL,
    first_name varchar(255),
    last_name varchar(255),
    email varchar(320),
    company varchar(255),
    title varchar(255),
    tags text[] NOT NULL DEFAULT '{}',
    source varchar(100) NOT NULL,
    import_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (campaign_id, phone)
  );
  CREATE INDEX ON ${name} (import_id);
  -- The lead search's indexes (docs/dashboard.md#leads), as on \`lead\`.
  CREATE INDEX ON ${name} (campaign_id, (lower(email)) COLLATE "C", id);
  CREATE INDEX ON ${name} (campaign_id, (lower(coalesce(first_name, '') || ' ' || coalesce(last_name, ''))) COLLATE "C", id);
  CREATE INDEX ON ${name} (campaign_id, (lower(coalesce(last_name, '') || ' ' || coalesce(first_name, ''))) COLLATE "C", id);`;
const leadValues = (lead, campaignId, importId) => [
  campaignId,
  lead.phone,
  lead.first_name,
  lead.last_name,
  lead.email,
  lead.company,
  lead.title,
  'bench',
  importId,
];
const csvField = (value) => `"${String(value).replaceAll('"', '""')}"`;

/** leads/s of COPY FROM STDIN (CSV, rendered before the clock starts) into a fresh table. */
async function copyRate(db, leads, campaignId, tag) {
  const table = `bench_ceiling.copy_${tag}`;
  await db.query(leadLikeTable(table));
  const importId = randomUUID();
  const csv = leads
    .map((lead) => leadValues(lead, campaignId, importId).map(csvField).join(',') + '\n')
    .join('');
  const started = nowMs();
  await pipeline(
    Readable.from([csv]),
    db.query(copyStreams.from(`COPY ${table} (${LEAD_COLUMNS}) FROM STDIN WITH (FORMAT csv)`)),
  );
  const ms = nowMs() - started;
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM ${table}`);
  if (rows[0].n !== leads.length) note(`COPY stored ${rows[0].n} of ${leads.length} rows`);
  await db.query(`DROP TABLE ${table}`);
  return leads.length / (ms / 1000);
}

/** leads/s of one INSERT per lead, awaited one after the other, in one transaction. */
async function naiveRate(db, leads, campaignId, tag) {
  const table = `bench_ceiling.naive_${tag}`;
  await db.query(leadLikeTable(table));
  const importId = randomUUID();
  const insert = `INSERT INTO ${table} (${LEAD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
  const started = nowMs();
  await db.query('BEGIN');
  for (const lead of leads) await db.query(insert, leadValues(lead, campaignId, importId));
  await db.query('COMMIT');
  const ms = nowMs() - started;
  await db.query(`DROP TABLE ${table}`);
  return leads.length / (ms / 1000);
}

// ---------------------------------------------------------------------------------------------
// The measure
// ---------------------------------------------------------------------------------------------

/**
 * Ours, COPY and naive INSERTs interleaved, the same rows in each round, after
 * `sizes.ingestWarmups` rounds of ours and COPY that are not counted.
 * @param again a second measure in the same run (--guard's re-measure): fresh campaigns of
 *   its own, no warm-up (the service is warm).
 */
export async function measure(ctx, again = false) {
  const { sizes } = ctx;
  // round_ratios: each round's upload beside the COPY of the same rows right after it.
  const ingest = {
    ours: [],
    copy: [],
    naive: [],
    upload_ms: [],
    warmup_ours: [],
    round_ratios: [],
  };
  for (let i = 1; i <= (again ? 0 : sizes.ingestWarmups); i++) {
    const leads = makeLeads(sizes.ingestLeads);
    const campaign = ctx.campaigns[`ingest-warmup-${i}`];
    const res = await ctx.upload(campaign, leads, `ingest warm-up ${i}`);
    if (res.accepted) ingest.warmup_ours.push(leads.length / ((res.doneAt - res.startedAt) / 1000));
    await copyRate(ctx.db, leads, campaign.id, `warmup_${i}`);
    log(
      `ingest warm-up ${i}/${sizes.ingestWarmups}: ours ${Math.round(ingest.warmup_ours.at(-1) ?? 0)} leads/s`,
    );
  }
  for (let i = 1; i <= sizes.ingestRuns; i++) {
    const leads = makeLeads(sizes.ingestLeads);
    const campaign = again
      ? await ctx.newCampaign(`ingest-again-${i}`)
      : ctx.campaigns[`ingest-${i}`];
    const res = await ctx.upload(campaign, leads, `ingest ${i}`);
    const accepted = res.accepted?.valid_count === leads.length;
    if (accepted) {
      const ms = res.doneAt - res.startedAt; // request sent → whole 202 body read
      ingest.ours.push(leads.length / (ms / 1000));
      ingest.upload_ms.push(ms);
    }
    ingest.copy.push(await copyRate(ctx.db, leads, campaign.id, `${again ? 'again_' : ''}${i}`));
    if (accepted) ingest.round_ratios.push(ingest.ours.at(-1) / ingest.copy.at(-1));
    ingest.naive.push(await naiveRate(ctx.db, leads, campaign.id, `${again ? 'again_' : ''}${i}`));
    log(
      `ingest ${i}/${sizes.ingestRuns}: ours ${Math.round(ingest.ours.at(-1) ?? 0)}, ` +
        `COPY ${Math.round(ingest.copy.at(-1))}, naive ${Math.round(ingest.naive.at(-1))} leads/s`,
    );
  }
  return ingest;
}

/** The table's ingest rows: vs COPY (guarded) and vs the naive peer. */
export function addRows(r, add, sizes) {
  const ingest = median(r.ingest.ours);
  const leads = `${count(sizes.ingestLeads)}-lead upload, median of ${sizes.ingestRuns} after ${sizes.ingestWarmups} warm-ups`;
  const copy = median(r.ingest.copy);
  const ingestRatio = ratioOf(ingest, copy);
  add(`ingest (${leads})`, {
    ours: ingest,
    ceiling: copy,
    unit: 'leads/s',
    label: 'COPY',
    goal: `≥ ${GOALS.ingest} of COPY`,
    met: ingestRatio == null ? null : ingestRatio >= GOALS.ingest,
    guard: GOALS.ingest,
    baseline: 'ingest',
    // --guard's figure: the median of the rounds' own ratios, each upload beside the COPY of
    // the same rows right after it, under the same load (a moment of load on a shared machine
    // moves one round, not the median of five).
    guardRatio: median(r.ingest.round_ratios ?? []),
  });
  const naive = median(r.ingest.naive);
  add('ingest vs naive peer', {
    ours: ingest,
    ceiling: naive,
    unit: 'leads/s',
    label: 'INSERT per lead, 1 tx',
  });
}
