// The service as bench/run.mjs runs it: its database and environment, `node dist/main.js` (API +
// delivery worker) with what it logs kept, the operator CLI, one HTTP call, and this run's
// Redis keys cleaned after.
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { request } from 'undici';
import { note, nowMs, root, running, sleep, track } from './harness.mjs';

// BENCH_DATABASE: another name, so that two runs on one machine do not drop each other's database.
export const DB = process.env.BENCH_DATABASE ?? 'campaign_api_bench';
export const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${DB}`;
export const QUEUE_PREFIX = `bench-${Date.now()}`;
const env = {
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL,
  QUEUE_PREFIX,
  // As a busy production deployment would log: info, with the "request completed" line of 1 %
  // of ordinary requests (failed and slow ones are always logged).
  LOG_LEVEL: 'info',
  LOG_REQUEST_SAMPLE_RATE: '0.01',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  RATE_LIMIT_TOKEN_PER_MIN: '1000000',
  RATE_LIMIT_API_PER_MIN: '1000000',
  // The scale-out step starts a second API process (with its worker) on the same port.
  HTTP_REUSE_PORT: 'true',
};

/** The service's environment in this run (its database, queue prefix, …), for other children. */
export const serviceEnv = () => ({ ...env });

/** What the API printed besides "listening": a count by level and the first 200 lines. */
export const apiLog = { lines: [], total: 0, byLevel: {} };
/** Info lines, the two development-secret warnings, and the start banner (src/start-banner.ts). */
export const EXPECTED_API_LOG =
  /^(info: |warn: (JWT_SECRET|SECRETS_ENCRYPTION_KEY) is not set: using a fixed development|stderr: (Campaign API is ready| {2}(API|Dashboard|API docs) {2,}http|$))/;
function keepApiLine(line, stream) {
  if (!line.trim()) return;
  apiLog.total++;
  let level = stream;
  let msg = line;
  try {
    const parsed = JSON.parse(line);
    level =
      { 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }[parsed.level] ?? String(parsed.level);
    msg = parsed.msg ?? line;
  } catch {
    // not JSON: keep the raw line
  }
  apiLog.byLevel[level] = (apiLog.byLevel[level] ?? 0) + 1;
  if (apiLog.lines.length < 200) apiLog.lines.push(`${level}: ${String(msg).slice(0, 300)}`);
}

const nodeArgs = [
  ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  // BENCH_SLOWDOWN=<share>: a regression on purpose, to check the guard (lib/slow-down.cjs).
  ...(process.env.BENCH_SLOWDOWN ? ['--require', join(root, 'bench/lib/slow-down.cjs')] : []),
];

/**
 * Starts `node dist/main.js` on PORT=0 (or `port`: a second process sharing the first one's
 * port, HTTP_REUSE_PORT), with `extraEnv` over the bench's environment, and returns it with its
 * base URL.
 */
export async function startApi(port = 0, extraEnv = {}) {
  const api = track(
    // BENCH_NODE_ARGS: extra node flags for the API, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
    spawn(process.execPath, [...nodeArgs, join(root, 'dist/main.js')], {
      env: { ...env, ...extraEnv, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let base = null;
  let stderrTail = '';
  const onLines = (stream) => {
    let buffered = '';
    return (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        const match = line.match(/listening on (http:\/\/127\.0\.0\.1:(\d+))/);
        if (match && base === null) base = match[1];
        else keepApiLine(line, stream);
        if (stream === 'stderr') stderrTail = (stderrTail + line + '\n').slice(-2000);
      }
    };
  };
  api.stdout.setEncoding('utf8').on('data', onLines('stdout'));
  api.stderr.setEncoding('utf8').on('data', onLines('stderr'));
  const deadline = Date.now() + 60_000;
  while (base === null) {
    if (!running(api)) throw new Error(`the API exited with ${api.exitCode}: ${stderrTail}`);
    if (Date.now() > deadline) throw new Error(`the API did not listen within 60 s: ${stderrTail}`);
    await sleep(50);
  }
  return { api, base };
}

const execFileAsync = promisify(execFile);
/** `node dist/cli.js ...args` against the bench database; its JSON document. */
export async function cli(...cliArgs) {
  try {
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(root, 'dist/cli.js'), ...cliArgs],
      {
        env,
        timeout: 60_000,
        maxBuffer: 1 << 20,
      },
    );
    return JSON.parse(stdout);
  } catch (error) {
    throw new Error(`cli ${cliArgs.join(' ')} failed: ${error.stderr || error.message}`);
  }
}

/**
 * One HTTP call to the API at `base` (http://127.0.0.1:PORT). headersAt: when the status line
 * arrived; doneAt: body read (ms, nowMs).
 */
export async function call(base, method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const startedAt = nowMs();
  const res = await request(`${base}${path}`, {
    method,
    headers,
    body,
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  const headersAt = nowMs();
  const text = await res.body.text();
  return { status: res.statusCode, text, startedAt, headersAt, doneAt: nowMs() };
}

/**
 * Deletes this run's BullMQ keys (`{<QUEUE_PREFIX>}:*`, hash-tagged) and rate-limit keys
 * (`<QUEUE_PREFIX>:*`) from Redis.
 */
export async function cleanRedis() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await redis.connect();
    for (const pattern of [`${QUEUE_PREFIX}:*`, `{${QUEUE_PREFIX}}:*`]) {
      let cursor = '0';
      let rounds = 0;
      do {
        const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = nextCursor;
      } while (cursor !== '0' && ++rounds < 100_000);
    }
  } catch (error) {
    note(`could not clean Redis keys ${QUEUE_PREFIX}:*: ${error.message}`);
  } finally {
    redis.disconnect();
  }
}
