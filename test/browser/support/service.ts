import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ServiceProcess } from '../../support/processes';

const CLI = join(__dirname, '..', '..', '..', 'dist', 'cli.js');

/** The service as `npm start` runs it (dist/main.js), with the dashboard, on this file's database. */
export interface DashboardService {
  process: ServiceProcess;
  /** e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** Environment of the service, for the CLI. */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * Starts dist/main.js on a free port with plain-HTTP session cookies
 * (`DASHBOARD_INSECURE_COOKIES=true`: the browser talks to it over http://127.0.0.1), its own
 * queue prefix and no delivery worker; `overrides` change any of these (e.g. `RUN_WORKER: 'true'`,
 * `WEBHOOK_ALLOW_PRIVATE_URLS: 'true'` to deliver to a receiver on 127.0.0.1).
 */
export async function startDashboardService(
  overrides: Record<string, string> = {},
): Promise<DashboardService> {
  const env = {
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser`,
    LOG_LEVEL: 'info',
    RUN_WORKER: 'false',
    PORT: '0',
    HOST: '127.0.0.1',
    DASHBOARD_INSECURE_COOKIES: 'true',
    ...overrides,
  };
  const service = new ServiceProcess('main.js', env);
  const origin = (await service.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1];
  return {
    process: service,
    origin,
    env,
    stop: async () => {
      await service.stop();
    },
  };
}

/**
 * {@link startDashboardService} overrides for a worker that delivers to receivers on 127.0.0.1,
 * leaves a failed delivery failed for the length of a test (the next try is an hour away) and
 * looks for failing endpoints every 500 ms (docs/webhooks.md#failing-endpoints).
 */
export const LOCAL_DELIVERY_WATCHED = {
  RUN_WORKER: 'true',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1h',
  WEBHOOK_MONITOR_INTERVAL_MS: '500',
};

/** Runs the operator CLI (dist/cli.js) with `input` on stdin; returns its JSON. */
export function cli(
  env: Record<string, string>,
  args: string[],
  input?: string,
): Record<string, unknown> {
  const stdout = execFileSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    input,
  });
  return JSON.parse(stdout.toString()) as Record<string, unknown>;
}

/** A new account and a dashboard user of it with `role` and `password` (through the CLI). */
export function givenDashboardUser(
  env: Record<string, string>,
  role: 'admin' | 'viewer',
  password: string,
): { accountId: number; email: string } {
  const unique = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const account = cli(env, ['account', 'create', '--name', `Browser ${unique}`]);
  const email = `${role}-${unique}@example.com`;
  cli(
    env,
    [
      'user',
      'create',
      '--account',
      String(account.id),
      '--email',
      email,
      '--role',
      role,
      '--password-stdin',
    ],
    `${password}\n`,
  );
  return { accountId: account.id as number, email };
}

/** A dashboard user of an existing account (through the CLI). */
export function givenUserOf(
  env: Record<string, string>,
  accountId: number,
  role: 'admin' | 'viewer',
  password: string,
): { accountId: number; email: string } {
  const unique = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const email = `${role}-${unique}@example.com`;
  cli(
    env,
    [
      'user',
      'create',
      '--account',
      String(accountId),
      '--email',
      email,
      '--role',
      role,
      '--password-stdin',
    ],
    `${password}\n`,
  );
  return { accountId, email };
}

/**
 * A new account with one campaign and one endpoint of it delivering `events` to `url` (through
 * the CLI), and an admin of the account with `password`.
 */
export function givenEndpointOfNewAccount(
  env: Record<string, string>,
  url: string,
  events: string[],
  password: string,
): { accountId: number; campaignId: number; endpointId: number; admin: { email: string } } {
  const accountId = cli(env, ['account', 'create', '--name', `Browser ${process.pid}`])
    .id as number;
  const campaign = ['--account', String(accountId), '--name', 'Winter launch', '--region', 'US'];
  const campaignId = cli(env, ['campaign', 'create', ...campaign]).id as number;
  const endpoint = ['--campaign', String(campaignId), '--url', url, '--events', events.join(',')];
  const endpointId = cli(env, ['endpoint', 'create', ...endpoint]).id as number;
  const admin = givenUserOf(env, accountId, 'admin', password);
  return { accountId, campaignId, endpointId, admin };
}
