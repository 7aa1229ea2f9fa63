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
 * Creates an account, a campaign, an API key and an endpoint subscribed to `lead.created` at
 * `receiverUrl` with the CLI, and exchanges the key for a token at `base`.
 * @returns the CLI's JSON for the campaign and the endpoint, and the access token.
 */
export async function givenCampaign(root, env, base, receiverUrl) {
  const cli = (...args) =>
    JSON.parse(
      execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { env }).toString(),
    );
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
  const { access_token } = await (
    await fetch(`${base}/api/v1/auth/api-key/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key }),
    })
  ).json();
  return { campaign, endpoint, accessToken: access_token };
}
