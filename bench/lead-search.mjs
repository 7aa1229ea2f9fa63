#!/usr/bin/env node
// The dashboard's lead search at scale (docs/dashboard.md#leads): one campaign with 1,000,000
// leads (and a neighbour campaign with a tenth of that, sharing the indexes), inserted with SQL,
// then EXPLAIN (ANALYZE, BUFFERS) and median timings of the searches a user makes: a phone in
// national format, email prefixes (common and selective), name prefixes (first name, last name,
// "first last"), and a second page. The SQL and its parameters are the service's own: checked
// by the compiled parseLeadSearch and built by leadSearchSql, as LeadDirectory runs them.
// Prints figures; asserts nothing.
//
// Build first (`npm run build`); PostgreSQL on 127.0.0.1:5432 as for the tests. Drops and
// recreates the database `campaign_api_bench_leads`.
//
// Last, what the three search indexes cost an upload: a 10,000-lead INSERT of the upload's
// shape (unnest of text arrays), timed with the indexes and, in the same transaction, without
// them (dropped, then rolled back), interleaved so that a busy machine slows both alike.
//
//   node bench/lead-search.mjs [--leads N] [--runs N] [--write-runs N]
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const root = join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    leads: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '50' },
    'write-runs': { type: 'string', default: '15' },
  },
});
const LEADS = Number(args.leads);
const RUNS = Number(args.runs);
const DATABASE = 'campaign_api_bench_leads';
const server = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const databaseUrl = `${server}/${DATABASE}`;

const load = async (path) => (await import(join(root, 'dist', path))).default;
const { prepareDatabase } = await load('database/prepare-database.js');
const { parseLeadSearch, encodeSearchCursor } = await load('leads/lead-search.js');
const { leadSearchSql } = await load('leads/lead-directory.repository.js');

const log = (line) => process.stdout.write(`${line}\n`);
const since = (start) => ((performance.now() - start) / 1000).toFixed(1);

const admin = new pg.Client({ connectionString: `${server}/postgres` });
await admin.connect();
await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
await admin.end();
await prepareDatabase(databaseUrl);
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
const { rows: version } = await db.query('SHOW server_version');
log(`PostgreSQL ${version[0].server_version}; ${LEADS} leads in the searched campaign`);

await db.query(`INSERT INTO account (name) VALUES ('bench')`);
const { rows: campaigns } = await db.query(
  `INSERT INTO campaign (account_id, name, default_region)
   SELECT id, n, 'US' FROM account, unnest(ARRAY['searched', 'neighbour']) AS n RETURNING id`,
);
const [campaignId, neighbourId] = campaigns.map((c) => c.id);
await db.query(
  `INSERT INTO api_key (account_id, key_hash, key_prefix) SELECT id, repeat('0', 64), 'bench' FROM account`,
);

// Realistic spread: 50 first names × 80 last names; emails first.last.n@one of 4 domains; 10 %
// without an email, 5 % without a last name. Phones +1 415 2xx xxxx (valid NANP numbers).
const FIRST = `ARRAY['Maria','James','Wei','Fatima','Olga','John','Aiko','Carlos','Amara','Liam',
  'Noah','Emma','Ava','Mateo','Sofia','Lucas','Mia','Ethan','Zara','Omar','Ivan','Nina','Leo',
  'Hana','Kofi','Priya','Raj','Elena','Marco','Sara','Tom','Anna','Jorge','Lena','Paul','Yuki',
  'Ada','Alan','Grace','Linus','Marta','Diego','Chen','Aisha','Ben','Clara','Dmitri','Eva','Felix','Gita']`;
const LAST = `ARRAY['Garcia','Smith','Wang','Khan','Ivanova','Brown','Tanaka','Lopez','Okafor','Murphy',
  'Jones','Miller','Davis','Martinez','Rossi','Muller','Silva','Kim','Nguyen','Patel','Singh','Cohen',
  'Novak','Horvat','Nowak','Kowalski','Dubois','Martin','Bernard','Moreau','Laurent','Fischer',
  'Weber','Meyer','Wagner','Becker','Schulz','Hoffmann','Schafer','Koch','Richter','Klein','Wolf',
  'Schroder','Neumann','Schwarz','Zimmermann','Braun','Kruger','Hofmann','Hartmann','Lange','Schmitt',
  'Werner','Schmitz','Krause','Meier','Lehmann','Schmid','Schulze','Maier','Kohler','Herrmann',
  'Konig','Walter','Mayer','Huber','Kaiser','Fuchs','Peters','Lang','Scholz','Moller','Weiss',
  'Jung','Hahn','Schubert','Vogel','Friedrich','Keller']`;

async function fill(campaign, count, offset) {
  const importId = crypto.randomUUID();
  await db.query(
    `INSERT INTO lead_import (id, campaign_id, api_key_id, source, tags, disclaimer_version,
                              compliance_acknowledged_at, received_count, valid_count, invalid_count, duplicate_count)
     SELECT $1, $2, id, 'bench', '{}', 'v1', now(), $3, $3, 0, 0 FROM api_key`,
    [importId, campaign, count],
  );
  const start = performance.now();
  for (let from = 0; from < count; from += 100_000) {
    const to = Math.min(count, from + 100_000) - 1;
    await db.query(
      `WITH names AS (SELECT ${FIRST} AS first, ${LAST} AS last)
       INSERT INTO lead (campaign_id, import_id, source, phone, first_name, last_name, email)
       SELECT $1, $2, 'bench', '+1415' || (2000000 + $5 + n)::text, f, l,
              CASE WHEN n % 10 = 0 THEN NULL
                   ELSE lower(f) || '.' || lower(coalesce(l, 'x')) || '.' || n || '@' ||
                        (ARRAY['example.com','mail.example.org','corp.example.net','inbox.example.io'])[1 + n % 4] END
         FROM names, generate_series($3::int, $4::int) AS n,
              LATERAL (SELECT first[1 + abs(hashint4(n) % 50)] AS f,
                              CASE WHEN n % 20 = 7 THEN NULL ELSE last[1 + abs(hashint4(n + 1000000007) % 80)] END AS l) AS picked`,
      [campaign, importId, from, to, offset],
    );
  }
  log(`inserted ${count} leads in campaign ${campaign} in ${since(start)} s`);
}

await fill(campaignId, LEADS, 0);
await fill(neighbourId, Math.round(LEADS / 10), LEADS);
await db.query('VACUUM ANALYZE lead');
const { rows: sizes } = await db.query(
  `SELECT c.relname, pg_size_pretty(pg_relation_size(c.oid)) AS size
     FROM pg_class c WHERE c.relname IN ('lead', 'uq_lead_campaign_id_phone', 'idx_lead_import_id',
       'idx_lead_search_email', 'idx_lead_search_name', 'idx_lead_search_name_reversed', 'PK_lead')
        OR (c.relkind = 'i' AND c.relname LIKE 'PK_%' AND c.oid IN
            (SELECT indexrelid FROM pg_index WHERE indrelid = 'lead'::regclass))
    ORDER BY c.relname`,
);
log(`sizes: ${sizes.map((s) => `${s.relname} ${s.size}`).join(', ')}`);

/** The search the service would run for `query` (as the dashboard's query string gives it). */
function searchFor(query) {
  const search = parseLeadSearch(query, 'US');
  return { search, sql: leadSearchSql(campaignId, search) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function measure(label, query) {
  const { search, sql } = searchFor(query);
  const { rows: plan } = await db.query(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql.text}`,
    sql.values,
  );
  const times = [];
  let found = 0;
  for (let run = 0; run < RUNS + 5; run++) {
    const start = performance.now();
    const { rows } = await db.query(sql.text, sql.values);
    if (run >= 5) times.push(performance.now() - start);
    found = rows.length;
  }
  log(`\n### ${label}: ${JSON.stringify(query)} → ${search.field} "${search.value}"`);
  log(`rows: ${Math.min(found, search.limit)} (asked ${search.limit} + 1)`);
  log(
    `median of ${RUNS}: ${median(times).toFixed(2)} ms (p90 ${[...times].sort((a, b) => a - b)[Math.floor(times.length * 0.9)].toFixed(2)} ms), client round trip included`,
  );
  log(plan.map((row) => `    ${row['QUERY PLAN']}`).join('\n'));
  return sql;
}

await measure('phone, national format', { q: '(415) 250-0000' });
await measure('email prefix, common', { q: 'maria.', field: 'email' });
await measure('email prefix, selective', { q: 'Maria.Garcia.12', field: 'email' });
await measure('name prefix, first name', { q: 'mar' });
await measure('name prefix, last name', { q: 'garc' });
await measure('name prefix, first and last', { q: 'Maria Gar' });
await measure('name prefix, nothing matches', { q: 'zzz' });
// A later page: resume after the 10,000th "m…" name, walking there by the service's cursors.
let cursor;
for (let page = 0; page < 100; page++) {
  const { search, sql } = searchFor({ q: 'm', limit: '100', ...(cursor ? { cursor } : {}) });
  const { rows } = await db.query(sql.text, sql.values);
  const last = rows[search.limit - 1];
  cursor = encodeSearchCursor(search.field, { key: last.sort_key, id: Number(last.id) });
}
await measure('name prefix, page after 10,000 rows', { q: 'm', limit: '100', cursor });
// The write cost of the search indexes on a 10,000-lead upload.
const SEARCH_INDEXES = [
  'idx_lead_search_email',
  'idx_lead_search_name',
  'idx_lead_search_name_reversed',
];
const batch = Array.from({ length: 10_000 }, (_, i) => i);
const columns = [
  batch.map((i) => `+1212${String(5_000_000 + i)}`),
  batch.map((i) => ['Maria', 'James', 'Wei', 'Fatima'][i % 4]),
  batch.map((i) => ['Garcia', 'Smith', 'Wang', 'Khan', 'Ivanova'][i % 5]),
  batch.map((i) => `upload.${i}@example.com`),
  batch.map(() => 'Example Corp'),
  batch.map(() => 'Buyer'),
];
async function timedInsert(withIndexes) {
  await db.query('BEGIN');
  try {
    if (!withIndexes) for (const index of SEARCH_INDEXES) await db.query(`DROP INDEX ${index}`);
    const importId = crypto.randomUUID();
    await db.query(
      `INSERT INTO lead_import (id, campaign_id, api_key_id, source, tags, disclaimer_version,
                                compliance_acknowledged_at, received_count, valid_count, invalid_count, duplicate_count)
       SELECT $1, $2, id, 'bench', '{}', 'v1', now(), 10000, 10000, 0, 0 FROM api_key`,
      [importId, neighbourId],
    );
    const start = performance.now();
    await db.query(
      `INSERT INTO lead (campaign_id, import_id, source, tags, phone, first_name, last_name, email, company, title)
       SELECT $1, $2, 'bench', '{}'::text[], l.phone, l.first_name, l.last_name, l.email, l.company, l.title
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
              AS l(phone, first_name, last_name, email, company, title)`,
      [neighbourId, importId, ...columns],
    );
    return performance.now() - start;
  } finally {
    await db.query('ROLLBACK');
  }
}
const WRITE_RUNS = Number(args['write-runs']);
const withIndexes = [];
const without = [];
await timedInsert(true);
await timedInsert(false);
for (let run = 0; run < WRITE_RUNS; run++) {
  withIndexes.push(await timedInsert(true));
  without.push(await timedInsert(false));
}
const [a, b] = [median(withIndexes), median(without)];
log(
  `\n### write cost: INSERT of 10,000 leads (the upload's statement), median of ${WRITE_RUNS} each`,
);
log(
  `with the three search indexes: ${a.toFixed(1)} ms; without: ${b.toFixed(1)} ms; +${(a - b).toFixed(1)} ms (${(((a - b) / b) * 100).toFixed(0)} %)`,
);
await db.end();
