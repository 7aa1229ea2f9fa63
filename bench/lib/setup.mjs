// What bench/run.mjs's measures share: a fresh database, the API, the webhook receiver and the
// fixtures (the `ctx` every measure takes), the machine's description, and the shutdown that
// stops them all.
import os from 'node:os';
import pg from 'pg';
import { call, cleanRedis, cli, DATABASE_URL, DB, PG_ADMIN_URL, startApi } from './api-process.mjs';
import { ask, forkReady, log, mapLimit, note, stopChild } from './harness.mjs';
import { uploadBody } from './leads.mjs';

async function prepareDatabase() {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DB}`);
  } finally {
    await admin.end();
  }
}

/** CPU, memory, OS, Node and PostgreSQL versions, for the results. */
export async function machineInfo(db) {
  const { rows } = await db.query('SHOW server_version');
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model ?? 'unknown',
    cpu_count: cpus.length,
    total_memory_gb: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgresql: rows[0].server_version,
  };
}

/**
 * The database, the API, the receiver and the fixtures every measure uses: an account, an API
 * key, campaigns (a fresh one per ingest run, one for the memory upload, "hooks" with an endpoint
 * subscribed to lead.created on the receiver, "scale" with two endpoints that never receive
 * anything), and a bearer token. `state` holds what must be stopped whatever happens; `sizes`
 * and `quick` are the run's (lib/settings.mjs) and ride on the returned ctx.
 */
export async function setup(state, sizes, quick) {
  await prepareDatabase();
  const receiver = await forkReady('lib/receiver.mjs');
  state.receiver = receiver.child;
  const receiverUrl = `http://127.0.0.1:${receiver.port}/hooks`;

  const started = await startApi();
  state.api = started.api;
  const { base } = started;
  log(`API at ${base} (pid ${state.api.pid}), receiver at ${receiverUrl}`);

  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  state.db = db;
  await db.query('CREATE SCHEMA IF NOT EXISTS bench_ceiling');

  const account = await cli('account', 'create', '--name', 'Bench');
  const campaignNames = [
    'scale',
    'memory',
    'hooks',
    ...Array.from({ length: sizes.ingestRuns }, (_, i) => `ingest-${i + 1}`),
    ...Array.from({ length: sizes.ingestWarmups }, (_, i) => `ingest-warmup-${i + 1}`),
  ];
  const [apiKey, ...campaignList] = await mapLimit(['api-key', ...campaignNames], 3, (name) =>
    name === 'api-key'
      ? cli('api-key', 'create', '--account', String(account.id), '--name', 'bench')
      : cli('campaign', 'create', '--account', String(account.id), '--name', `Bench ${name}`),
  );
  const campaigns = Object.fromEntries(campaignNames.map((name, i) => [name, campaignList[i]]));
  const endpoint = (campaign, url, events) =>
    cli('endpoint', 'create', '--campaign', String(campaign.id), '--url', url, '--events', events);
  const [hook, empty, full] = await Promise.all([
    endpoint(campaigns.hooks, receiverUrl, 'lead.created'),
    endpoint(campaigns.scale, `${receiverUrl}/never`, 'call.completed'),
    endpoint(campaigns.scale, `${receiverUrl}/never`, 'call.completed'),
  ]);
  log(`fixtures ready (${campaignNames.length} campaigns, 3 endpoints)`);

  const exchange = await call(base, 'POST', '/api/v1/auth/api-key/token', {
    body: JSON.stringify({ api_key: apiKey.api_key }),
  });
  if (exchange.status !== 200) {
    throw new Error(`token exchange answered ${exchange.status}: ${exchange.text}`);
  }
  const token = JSON.parse(exchange.text).access_token;

  const ctx = {
    state,
    db,
    sizes,
    quick,
    base, // http://127.0.0.1:PORT of the API (a measure that restarts the API sets it anew)
    apiKey: apiKey.api_key,
    token,
    campaigns,
    endpoints: { hook, empty, full },
    receiverUrl,
    received: 0, // requests the receiver has had so far

    /** One HTTP call to the API (lib/api-process.mjs `call`, at ctx.base). */
    call: (method, path, options) => call(ctx.base, method, path, options),

    /** Uploads leads: the call's timings plus the parsed 202 (null, and noted, otherwise). */
    async upload(campaign, leads, label) {
      const res = await ctx.call('POST', '/api/v1/leads/upload', {
        body: uploadBody(campaign.id, leads),
        token,
      });
      if (res.status !== 202) {
        note(`${label}: upload answered ${res.status}: ${res.text.slice(0, 300)}`);
        return { ...res, accepted: null };
      }
      const accepted = JSON.parse(res.text);
      if (accepted.valid_count !== leads.length) {
        note(
          `${label}: ${accepted.valid_count} of ${leads.length} leads valid ` +
            `(${accepted.invalid_count} invalid, ${accepted.duplicate_count} duplicates)`,
        );
      }
      return { ...res, accepted };
    },

    /** A campaign created now, for a measure run again (see `campaigns` for the others). */
    async newCampaign(name) {
      const campaign = await cli(
        'campaign',
        'create',
        '--account',
        String(account.id),
        '--name',
        `Bench ${name}`,
      );
      campaigns[name] = campaign;
      return campaign;
    },

    /** Waits until the receiver has had n requests (see bench/lib/receiver.mjs). */
    async waitFor(n, from, timeoutMs) {
      const message = { cmd: 'wait', n, from, timeoutMs };
      const answer = await ask(state.receiver, message, timeoutMs + 5_000);
      ctx.received = answer.count;
      return answer;
    },

    /** The health path of the "hooks" campaign's endpoint. */
    healthPath: `/api/v1/webhooks/${campaigns.hooks.id}/endpoints/${hook.id}/health`,
  };
  return ctx;
}

/** Stops every child still running, closes the database client, cleans Redis. Idempotent. */
export async function shutdown(state) {
  for (const child of [state.fastify, state.secondApi, state.api, state.receiver]) {
    if (child) await stopChild(child, 'SIGTERM', 35_000);
  }
  await state.db?.end().catch(() => {});
  state.db = null;
  if (!state.redisCleaned) {
    state.redisCleaned = true;
    await cleanRedis();
  }
}
