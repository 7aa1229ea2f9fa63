// The service as the benchmarks start it: `node dist/main.js` on a port of its own, and an
// account with a campaign, an API key, a token and one endpoint created through the CLI.
import { spawn, execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts `dist/main.js` (API + worker) with `env` on a free port of 127.0.0.1.
 * @returns the child process and its base URL, once it listens.
 */
export async function startApi(root, env, nodeArgs = []) {
  const api = spawn(process.execPath, [...nodeArgs, join(root, 'dist/main.js')], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  api.stdout.on('data', (c) => (out += c));
  while (!/listening on (http:\/\/[\d.:]+)/.test(out)) await new Promise((r) => setTimeout(r, 50));
  return { api, base: out.match(/listening on (http:\/\/[\d.:]+)/)[1] };
}

/**
 * The environment of a benchmark's service: `base` (the process's own) on database `database`
 * with the queue namespace `queuePrefix`, local receivers allowed, logs at `warn`, rate limits
 * out of the way.
 */
export function benchEnv(base, database, queuePrefix) {
  return {
    ...base,
    NODE_ENV: 'development',
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    QUEUE_PREFIX: queuePrefix,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_API_PER_MIN: '1000000',
    RATE_LIMIT_TOKEN_PER_MIN: '1000000',
  };
}

/** Drops `database` (the service creates and migrates it again at start). */
export async function dropBenchDatabase(pg, database) {
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}

/** The operator CLI (`dist/cli.js`) with `env`, run synchronously: `cli(...args)` → its JSON. */
export function cliOf(root, env) {
  return (...args) =>
    JSON.parse(
      execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { env }).toString(),
    );
}

/** Exchanges `apiKey` for an access token at `base`. */
export async function accessToken(base, apiKey) {
  const { access_token } = await (
    await fetch(`${base}/api/v1/auth/api-key/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: apiKey }),
    })
  ).json();
  return access_token;
}

/**
 * Creates an account, a campaign, an API key and an endpoint subscribed to `lead.created` at
 * `receiverUrl` with the CLI, and exchanges the key for a token at `base`.
 * @returns the CLI's JSON for the campaign and the endpoint, and the access token.
 */
export async function givenCampaign(root, env, base, receiverUrl) {
  const cli = cliOf(root, env);
  const account = cli('account', 'create', '--name', 'Bench');
  const campaign = cli('campaign', 'create', '--account', String(account.id), '--name', 'Bench');
  const { api_key } = cli('api-key', 'create', '--account', String(account.id));
  const endpoint = cli(
    'endpoint',
    'create',
    '--campaign',
    String(campaign.id),
    '--url',
    receiverUrl,
    '--events',
    'lead.created',
  );
  return { campaign, endpoint, accessToken: await accessToken(base, api_key) };
}
