import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (test/fault/support → ../../..). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** The compiled service the suite runs: `FAULT_SERVICE_DIST`, default `<repo>/dist`. */
export const SERVICE_DIST = process.env.FAULT_SERVICE_DIST
  ? resolve(process.env.FAULT_SERVICE_DIST)
  : join(REPO_ROOT, 'dist');

/** The machine's PostgreSQL server (no database in the path) and Redis, reached directly. */
export const PG_SERVER_URL = (
  process.env.FAULT_PG_URL ?? 'postgres://postgres@127.0.0.1:5432'
).replace(/\/+$/, '');
export const REDIS_SERVER_URL = (process.env.FAULT_REDIS_URL ?? 'redis://127.0.0.1:6379').replace(
  /\/\d*$/,
  '',
);

/** The table of the last run (committed or not: the team decides). */
export const RESULTS_FILE = join(REPO_ROOT, 'test', 'fault', 'results', 'latest.md');

/** Fixed for every process of a run (API, workers, CLI must agree on both). */
export const JWT_SECRET = 'fault-suite-only-jwt-secret-0123456789abcdefghijkl';
export const SECRETS_ENCRYPTION_KEY = Buffer.alloc(32, 9).toString('base64');

/** Short retries and sweeps, so a scenario settles in seconds. */
export const RETRY_SCHEDULE = '200ms,500ms,1s,1s,2s,2s,3s,3s';

/** The environment every spawned service process and CLI run gets (the scenario adds the URLs). */
export function baseServiceEnv(): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    JWT_SECRET,
    SECRETS_ENCRYPTION_KEY,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
    WEBHOOK_SWEEP_INTERVAL_MS: '1000',
    RATE_LIMIT_API_PER_MIN: '1000000',
    RATE_LIMIT_TOKEN_PER_MIN: '1000000',
  };
}

/**
 * The inherited part of a child's environment: only what Node needs to run, never the
 * caller's DATABASE_URL / REDIS_URL / QUEUE_PREFIX. NODE_PATH lets a dist compiled outside the
 * repository (FAULT_SERVICE_DIST=/tmp/…) find the repository's node_modules.
 */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SYSTEMROOT']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const modules = join(REPO_ROOT, 'node_modules');
  env.NODE_PATH = process.env.NODE_PATH ? `${modules}:${process.env.NODE_PATH}` : modules;
  return env;
}

/** Throws with a readable message when the compiled entrypoints are missing. */
export function assertDistPresent(): void {
  for (const entry of ['main.js', 'worker.js', 'cli.js']) {
    if (!existsSync(join(SERVICE_DIST, entry))) {
      throw new Error(
        `${join(SERVICE_DIST, entry)} is missing: build the service (npm run build) or point ` +
          'FAULT_SERVICE_DIST at a compiled copy',
      );
    }
  }
}

/** A short random tag for database names and queue prefixes. */
export function randomTag(length = 8): string {
  let tag = '';
  while (tag.length < length) tag += Math.random().toString(36).slice(2);
  return tag.slice(0, length);
}
