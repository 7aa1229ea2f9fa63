// Load generation (autocannon runs) and what the processes under load spend: CPU time of the
// API, PostgreSQL and Redis, and the API's resident memory. For bench/run.mjs's measures.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { DB, PG_ADMIN_URL } from './api-process.mjs';
import { note } from './harness.mjs';
import { percentile } from './stats.mjs';

/**
 * One autocannon run: 2xx req/s and p50/p99 of the 2xx latencies (ms, as floats: collected
 * from each response rather than from autocannon's integer histogram). Non-2xx, errors and
 * timeouts are noted.
 */
export async function load(
  label,
  { url, method = 'GET', headers = {}, body, connections, seconds },
) {
  const latencies = [];
  const instance = autocannon({ url, method, headers, body, connections, duration: seconds });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) {
    note(
      `${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `(status codes ${JSON.stringify(result.statusCodeStats)})`,
    );
  }
  return {
    requests_per_s: result['2xx'] / result.duration,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    connections,
  };
}

/**
 * A warm-up run of `warmupSeconds` (discarded), then the measured run of `seconds`. With
 * `pid` (one or an array), the figures also carry cpu_us_per_request of those processes.
 */
export async function warmLoad(label, options, seconds, warmupSeconds, pid = null) {
  await load(`${label} (warm-up)`, { ...options, seconds: warmupSeconds });
  const pids = pid === null ? [] : [pid].flat();
  const cpu = () => pids.reduce((sum, p) => sum + cpuMs(p), 0);
  const cpuBefore = cpu();
  const result = await load(label, { ...options, seconds });
  // CPU time the server process(es) spent per answered request: unlike req/s, it barely moves
  // when other work shares the machine, so it compares two versions of the code fairly.
  if (pids.length > 0) result.cpu_us_per_request = ((cpu() - cpuBefore) * 1000) / result.ok;
  return result;
}

/**
 * Starts counting the CPU time of the API process(es), of this run's PostgreSQL backends and of
 * the Redis server (shared with anything else on the machine that uses it).
 * @returns `perItem(n)`: µs of CPU per item since the start, by part (it ends the count);
 *   `close()` ends it without a figure.
 */
export async function cpuOfServices(ctx) {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  {
    const backends = async () =>
      (
        await admin.query(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [DB],
        )
      ).rows.map((r) => r.pid);
    const redisPid = Number(
      await new Promise((resolve) =>
        execFile('pidof', ['redis-server'], (error, stdout) =>
          resolve(error ? 0 : stdout.split(' ')[0]),
        ),
      ),
    );
    const apiPids = [ctx.state.api.pid, ctx.state.secondApi?.pid].filter(Boolean);
    const safeCpu = (pid) => {
      try {
        return cpuMs(pid);
      } catch {
        return 0; // the process ended meanwhile
      }
    };
    const start = {
      api: apiPids.map(safeCpu),
      pg: new Map(),
      redis: redisPid ? safeCpu(redisPid) : 0,
    };
    for (const pid of await backends()) start.pg.set(pid, safeCpu(pid));
    return {
      async perItem(n) {
        const api = apiPids.reduce((sum, pid, i) => sum + safeCpu(pid) - start.api[i], 0);
        let pgMs = 0;
        for (const pid of new Set([...start.pg.keys(), ...(await backends())])) {
          pgMs += safeCpu(pid) - (start.pg.get(pid) ?? 0);
        }
        const redis = redisPid ? safeCpu(redisPid) - start.redis : 0;
        await admin.end();
        const us = (ms) => Math.round((ms * 1000) / Math.max(n, 1));
        return {
          api: us(api),
          postgres: us(pgMs),
          redis: us(redis),
          total: us(api + pgMs + redis),
        };
      },
      close: () => admin.end(),
    };
  }
}

/** User + system CPU time of a process so far, in ms (from /proc/<pid>/stat, 10-ms ticks). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Resident set size of a process in MB, from /proc/<pid>/status. */
export function rssMb(pid) {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
  return match ? Number(match[1]) / 1024 : NaN;
}
