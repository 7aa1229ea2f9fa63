import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { parseRedisUrl, RedisUrlError, type RedisTarget } from '../redis/redis-connection';

/** Deployment mode read from `NODE_ENV`. */
export type NodeEnv = 'development' | 'production' | 'test';

/**
 * The service's whole configuration, validated once at start-up (docs/configuration.md).
 *
 * Durations are in the unit named by the field. Secrets are held here only; nothing logs
 * this object.
 */
export class AppConfig {
  nodeEnv!: NodeEnv;
  /** Interface the HTTP server binds to (`HOST`, default `0.0.0.0`). */
  host!: string;
  /** TCP port (`PORT`, default 3000). */
  port!: number;
  /**
   * TCP port of the Prometheus metrics server (`METRICS_PORT`); null (unset, the default)
   * serves no metrics. Never the public `PORT` (docs/operations.md#metrics).
   */
  metricsPort!: number | null;
  /** Interface the metrics server binds to (`METRICS_HOST`, default `HOST`). */
  metricsHost!: string;
  /** PostgreSQL connection URL (`DATABASE_URL`). */
  databaseUrl!: string;
  /** Redis connection URL (`REDIS_URL`), as given: it may hold a password, never log it. */
  redisUrl!: string;
  /**
   * `REDIS_URL` read: one Redis, a Redis Cluster's seed nodes or Sentinel's sentinels
   * (docs/operations.md#redis-cluster-and-sentinel). Open clients with `createRedisClient`.
   */
  redis!: RedisTarget;
  /** HS256 signing secret for bearer JWTs (`JWT_SECRET`, at least 32 characters). */
  jwtSecret!: string;
  /** Lifetime of an access token in seconds (`TOKEN_TTL_SECONDS`, default 900). */
  tokenTtlSeconds!: number;
  /** 32-byte key for AES-256-GCM encryption of signing secrets (`SECRETS_ENCRYPTION_KEY`). */
  secretsEncryptionKey!: Buffer;
  /** A delivery attempt's time limit in ms (`WEBHOOK_TIMEOUT_MS`, default 10000). */
  webhookTimeoutMs!: number;
  /** Delays in ms before each retry of a failed delivery (`WEBHOOK_RETRY_SCHEDULE`). */
  webhookRetryScheduleMs!: number[];
  /** Whether deliveries may target loopback, private and link-local addresses. */
  webhookAllowPrivateUrls!: boolean;
  /**
   * The HTTP proxy every delivery attempt goes through with CONNECT (`WEBHOOK_PROXY_URL`,
   * `http://[user:password@]host[:port]`; docs/webhooks.md#outbound-proxy), null for direct
   * connections. Its credentials are secrets: never log it.
   */
  webhookProxyUrl!: URL | null;
  /** Whether the API process also runs the delivery worker (`RUN_WORKER`, default true). */
  runWorker!: boolean;
  /** Delivery attempts one worker process runs at once (`WEBHOOK_WORKER_CONCURRENCY`, default 200). */
  webhookWorkerConcurrency!: number;
  /** How often a worker re-queues deliveries committed but never queued, in ms (`WEBHOOK_SWEEP_INTERVAL_MS`, default 10000). */
  webhookSweepIntervalMs!: number;
  /**
   * How long an endpoint may be failing, with no success since, before it is disabled with the
   * reason `auto`, in ms (`WEBHOOK_DISABLE_AFTER`, default 5d; docs/webhooks.md#failing-endpoints).
   */
  webhookDisableAfterMs!: number;
  /** How often a worker applies the failing-endpoint rules, in ms (`WEBHOOK_MONITOR_INTERVAL_MS`, default 60000). */
  webhookMonitorIntervalMs!: number;
  /**
   * The recovery probing schedule of an endpoint disabled `auto` that opted in
   * (docs/webhooks.md#endpoints-that-come-back-by-themselves), in ms: the first probe comes
   * `first` after probing starts (`WEBHOOK_RECOVERY_PROBE_FIRST`, default 1h), each next one
   * twice as long after the last, at most `maxInterval` (`WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL`,
   * default 1d, not less than `first`), for `for` (`WEBHOOK_RECOVERY_PROBE_FOR`, default 30d)
   * after probing started; then the service gives up.
   */
  webhookRecoveryProbe!: { firstMs: number; maxIntervalMs: number; forMs: number };
  /**
   * Days attempts, events and their bodies are kept (`DELIVERY_RETENTION_DAYS`, default 30, 1 to
   * 3650; docs/operations.md#retention).
   */
  deliveryRetentionDays!: number;
  /** How often a worker applies retention, in ms (`DELIVERY_RETENTION_INTERVAL_MS`, default 3600000). */
  deliveryRetentionIntervalMs!: number;
  /**
   * How long a spreadsheet upload that was never started is kept before it is discarded with
   * its stored file, in ms (`SPREADSHEET_UPLOAD_TTL`, default 24h, 1m to 30d;
   * docs/dashboard.md#abandoned-uploads).
   */
  spreadsheetUploadTtlMs!: number;
  /**
   * Prefix of every Redis key of this deployment (`QUEUE_PREFIX`); null (the default) derives
   * it from the database's deployment id, so deployments sharing a Redis never collide.
   */
  queuePrefix!: string | null;
  /**
   * Whether the HTTP port is opened with SO_REUSEPORT (`HTTP_REUSE_PORT`, default false), so
   * that several API processes on one machine can listen on the same port.
   */
  httpReusePort!: boolean;
  /** pino level (`LOG_LEVEL`, default `info`; `silent` turns logs off). */
  logLevel!: string;
  /**
   * Share of ordinary requests whose `request completed` line is written, 0 to 1
   * (`LOG_REQUEST_SAMPLE_RATE`, default 1: every request); failed and slow ones always are.
   */
  logRequestSampleRate!: number;
  /** A request taking this many ms or more is always logged (`LOG_SLOW_REQUEST_MS`, default 1000). */
  logSlowRequestMs!: number;
  /** Token exchanges per client IP per minute (`RATE_LIMIT_TOKEN_PER_MIN`, default 20). */
  rateLimitTokenPerMin!: number;
  /** Other requests per API key per minute (`RATE_LIMIT_API_PER_MIN`, default 1200). */
  rateLimitApiPerMin!: number;
  /**
   * Failed bearer authentications per client IP per minute (`RATE_LIMIT_AUTH_FAILURES_PER_MIN`,
   * default 60); past it the client gets 429 instead of 401 until the minute ends.
   */
  rateLimitAuthFailuresPerMin!: number;
  /**
   * Dashboard sign-in attempts per email from every address together per 15 minutes
   * (`RATE_LIMIT_SIGN_IN_PER_EMAIL`, default 30): past it, only addresses the user has signed
   * in from may try that email (docs/security.md#sign-in-guessing).
   */
  rateLimitSignInPerEmail!: number;
  /**
   * Dashboard sign-in attempts per email from one client IP per 15 minutes
   * (`RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP`, default 10; docs/security.md#sign-in-guessing).
   */
  rateLimitSignInPerEmailAndIp!: number;
  /** Dashboard sign-in attempts per client IP per 15 minutes (`RATE_LIMIT_SIGN_IN_PER_IP`, default 50). */
  rateLimitSignInPerIp!: number;
  /**
   * Whether the dashboard's session cookie goes without `Secure` (`DASHBOARD_INSECURE_COOKIES`,
   * default false): for plain-HTTP local use only (docs/dashboard.md#sessions).
   */
  dashboardInsecureCookies!: boolean;
  /**
   * Longest an HTTP request may take to arrive, headers and body, in ms
   * (`HTTP_REQUEST_TIMEOUT_MS`, default 60000, at least 1000); a slower client gets 408 and
   * its connection is closed.
   */
  httpRequestTimeoutMs!: number;
  /** Origins allowed by CORS (`CORS_ORIGINS`, comma-separated); empty means CORS is off. */
  corsOrigins!: string[];
  /**
   * Fastify `trustProxy` (`TRUST_PROXY`): `false` (the socket address is the client) or the
   * proxies' IP addresses/CIDRs. Never `true` nor a hop count: either would let a client
   * choose its IP with `X-Forwarded-For`.
   */
  trustProxy!: false | string[];
  /** Start-up warnings (development fallbacks) for the caller to log. */
  warnings!: string[];
}

/** A configuration value that stops the process; `message` is one line naming the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

const DURATION_UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a comma-separated list of durations such as `5s,5m,30m,2h,500ms,5d`.
 *
 * @returns the durations in milliseconds, in order.
 * @throws ConfigError naming `variable` when an item is not `<integer><ms|s|m|h>`.
 */
export function parseDurationList(value: string, variable: string): number[] {
  return value.split(',').map((item) => {
    const match = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(item);
    if (!match) {
      throw new ConfigError(variable, `has "${item.trim()}"; expected durations like 5s,5m,500ms`);
    }
    return Number(match[1]) * DURATION_UNITS_MS[match[2]];
  });
}

/** One duration (`5d`, `36h`, …) of {@link parseDurationList}'s form. */
function oneDuration(variable: string, value: string): number {
  const durations = parseDurationList(value, variable);
  if (durations.length !== 1)
    throw new ConfigError(variable, `has "${value}"; expected one duration like 5d`);
  return durations[0];
}

/**
 * One duration between `min` and `max` ms.
 * @throws ConfigError naming `variable` otherwise.
 */
function boundedDuration(variable: string, value: string, min: number, max: number): number {
  const ms = oneDuration(variable, value);
  if (ms < min || ms > max) {
    throw new ConfigError(variable, `has "${value}"; expected a duration from 1m to 30d`);
  }
  return ms;
}

/**
 * The recovery probing schedule (docs/webhooks.md#endpoints-that-come-back-by-themselves):
 * `WEBHOOK_RECOVERY_PROBE_FIRST` (default 1h), `WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL` (default
 * 1d) and `WEBHOOK_RECOVERY_PROBE_FOR` (default 30d), each one duration from 1s to 365d.
 * @throws ConfigError naming the variable for a bad value, or the maximum interval when it is
 *   less than the first.
 */
function recoveryProbeSchedule(get: (name: string) => string | undefined): {
  firstMs: number;
  maxIntervalMs: number;
  forMs: number;
} {
  const duration = (variable: string, value: string): number => {
    const ms = oneDuration(variable, value);
    if (ms < 1000 || ms > 365 * 86_400_000) {
      throw new ConfigError(variable, `has "${value}"; expected a duration from 1s to 365d`);
    }
    return ms;
  };
  const firstMs = duration(
    'WEBHOOK_RECOVERY_PROBE_FIRST',
    get('WEBHOOK_RECOVERY_PROBE_FIRST') ?? '1h',
  );
  const maxIntervalMs = duration(
    'WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL',
    get('WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL') ?? '1d',
  );
  if (maxIntervalMs < firstMs) {
    throw new ConfigError(
      'WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL',
      'is shorter than WEBHOOK_RECOVERY_PROBE_FIRST; expected at least as long',
    );
  }
  const forMs = duration('WEBHOOK_RECOVERY_PROBE_FOR', get('WEBHOOK_RECOVERY_PROBE_FOR') ?? '30d');
  return { firstMs, maxIntervalMs, forMs };
}

const DEV_JWT_SECRET = 'development-only-jwt-secret-change-me-0123456789';
/** Fixed so that the API, workers and the CLI of one development setup share it. */
const DEV_SECRETS_ENCRYPTION_KEY = Buffer.from('development-only-encryption-key!').toString(
  'base64',
);

/**
 * Reads and validates the environment (docs/configuration.md).
 *
 * In production (`NODE_ENV=production`) a missing `JWT_SECRET` or `SECRETS_ENCRYPTION_KEY` is
 * an error; elsewhere a development value is used and a warning is returned in `warnings`.
 *
 * @param env the variables to read, `process.env` by default.
 * @throws ConfigError with a one-line message naming the first bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const warnings: string[] = [];
  const get = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return Number(raw);
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = get(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    throw new ConfigError(name, `must be true or false, got "${raw}"`);
  };
  const url = (name: string, fallback: string, protocols: string[]): string => {
    const raw = get(name) ?? fallback;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, 'is not a valid URL');
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
    }
    return raw;
  };

  const nodeEnvRaw = get('NODE_ENV') ?? 'development';
  if (!['development', 'production', 'test'].includes(nodeEnvRaw)) {
    throw new ConfigError(
      'NODE_ENV',
      `must be development, production or test, got "${nodeEnvRaw}"`,
    );
  }
  const nodeEnv = nodeEnvRaw as NodeEnv;
  const production = nodeEnv === 'production';

  let jwtSecret = get('JWT_SECRET');
  if (jwtSecret === undefined) {
    if (production) throw new ConfigError('JWT_SECRET', 'is required in production');
    jwtSecret = DEV_JWT_SECRET;
    warnings.push(
      'JWT_SECRET is not set: using a fixed development secret (never do this in production)',
    );
  } else if (jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters');
  }

  let secretsEncryptionKey: Buffer;
  const keyRaw = get('SECRETS_ENCRYPTION_KEY');
  if (keyRaw === undefined) {
    if (production) throw new ConfigError('SECRETS_ENCRYPTION_KEY', 'is required in production');
    secretsEncryptionKey = Buffer.from(DEV_SECRETS_ENCRYPTION_KEY, 'base64');
    warnings.push(
      'SECRETS_ENCRYPTION_KEY is not set: using a fixed development key (never do this in production)',
    );
  } else {
    secretsEncryptionKey = Buffer.from(keyRaw, 'base64');
    if (secretsEncryptionKey.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(keyRaw)) {
      throw new ConfigError(
        'SECRETS_ENCRYPTION_KEY',
        'must be 32 random bytes in base64 (openssl rand -base64 32)',
      );
    }
  }

  const host = get('HOST') ?? '0.0.0.0';
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new ConfigError('HOST', `must be an IP address or localhost, got "${host}"`);
  }

  const port = int('PORT', 3000, 0, 65535);
  const metricsPort = get('METRICS_PORT') === undefined ? null : int('METRICS_PORT', 0, 1, 65535);
  if (metricsPort !== null && metricsPort === port) {
    throw new ConfigError(
      'METRICS_PORT',
      `must differ from PORT (${port}): metrics are never served on the public port`,
    );
  }
  const metricsHost = get('METRICS_HOST') ?? host;
  if (metricsHost !== 'localhost' && isIP(metricsHost) === 0) {
    throw new ConfigError(
      'METRICS_HOST',
      `must be an IP address or localhost, got "${metricsHost}"`,
    );
  }

  const logLevel = get('LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of fatal, error, warn, info, debug, trace, silent`,
    );
  }

  const sampleRaw = get('LOG_REQUEST_SAMPLE_RATE') ?? '1';
  const logRequestSampleRate = Number(sampleRaw);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(sampleRaw) || logRequestSampleRate > 1) {
    throw new ConfigError(
      'LOG_REQUEST_SAMPLE_RATE',
      `must be a number from 0 to 1, got "${sampleRaw}"`,
    );
  }

  const dashboardInsecureCookies = bool('DASHBOARD_INSECURE_COOKIES', false);
  if (dashboardInsecureCookies && production) {
    warnings.push(
      'DASHBOARD_INSECURE_COOKIES is true in production: the dashboard session cookie can travel over plain HTTP',
    );
  }

  const rateLimitSignInPerEmail = int('RATE_LIMIT_SIGN_IN_PER_EMAIL', 30, 1, 1_000_000);
  const rateLimitSignInPerEmailAndIp = int('RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP', 10, 1, 1_000_000);
  if (rateLimitSignInPerEmail <= rateLimitSignInPerEmailAndIp) {
    warnings.push(
      `RATE_LIMIT_SIGN_IN_PER_EMAIL (${rateLimitSignInPerEmail}) is not above ` +
        `RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP (${rateLimitSignInPerEmailAndIp}): failed sign-ins ` +
        'from one address will close an email to every address its user has not signed in from',
    );
  }

  const redisUrl = get('REDIS_URL') ?? 'redis://127.0.0.1:6379';
  let redis: RedisTarget;
  try {
    redis = parseRedisUrl(redisUrl);
  } catch (error) {
    if (!(error instanceof RedisUrlError)) throw error;
    throw new ConfigError('REDIS_URL', error.message);
  }

  const config = new AppConfig();
  Object.assign(config, {
    nodeEnv,
    host,
    port,
    metricsPort,
    metricsHost,
    httpReusePort: bool('HTTP_REUSE_PORT', false),
    databaseUrl: url('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/campaign_api', [
      'postgres:',
      'postgresql:',
    ]),
    redisUrl,
    redis,
    jwtSecret,
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', 900, 1, 86_400),
    secretsEncryptionKey,
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookRetryScheduleMs: parseDurationList(
      get('WEBHOOK_RETRY_SCHEDULE') ?? '5s,5m,30m,2h,5h,10h,10h',
      'WEBHOOK_RETRY_SCHEDULE',
    ),
    webhookAllowPrivateUrls: bool('WEBHOOK_ALLOW_PRIVATE_URLS', false),
    webhookProxyUrl: parseProxyUrl(get('WEBHOOK_PROXY_URL')),
    runWorker: bool('RUN_WORKER', true),
    webhookWorkerConcurrency: int('WEBHOOK_WORKER_CONCURRENCY', 200, 1, 1000),
    webhookSweepIntervalMs: int('WEBHOOK_SWEEP_INTERVAL_MS', 10_000, 100, 3_600_000),
    webhookDisableAfterMs: oneDuration(
      'WEBHOOK_DISABLE_AFTER',
      get('WEBHOOK_DISABLE_AFTER') ?? '5d',
    ),
    webhookMonitorIntervalMs: int('WEBHOOK_MONITOR_INTERVAL_MS', 60_000, 100, 3_600_000),
    webhookRecoveryProbe: recoveryProbeSchedule(get),
    deliveryRetentionDays: int('DELIVERY_RETENTION_DAYS', 30, 1, 3650),
    deliveryRetentionIntervalMs: int('DELIVERY_RETENTION_INTERVAL_MS', 3_600_000, 1000, 86_400_000),
    spreadsheetUploadTtlMs: boundedDuration(
      'SPREADSHEET_UPLOAD_TTL',
      get('SPREADSHEET_UPLOAD_TTL') ?? '24h',
      60_000,
      30 * 86_400_000,
    ),
    queuePrefix: queuePrefix(get('QUEUE_PREFIX')),
    logLevel,
    logRequestSampleRate,
    logSlowRequestMs: int('LOG_SLOW_REQUEST_MS', 1000, 0, 3_600_000),
    rateLimitTokenPerMin: int('RATE_LIMIT_TOKEN_PER_MIN', 20, 1, 1_000_000),
    rateLimitApiPerMin: int('RATE_LIMIT_API_PER_MIN', 1200, 1, 10_000_000),
    rateLimitAuthFailuresPerMin: int('RATE_LIMIT_AUTH_FAILURES_PER_MIN', 60, 1, 10_000_000),
    rateLimitSignInPerEmail,
    rateLimitSignInPerEmailAndIp,
    rateLimitSignInPerIp: int('RATE_LIMIT_SIGN_IN_PER_IP', 50, 1, 1_000_000),
    dashboardInsecureCookies,
    httpRequestTimeoutMs: int('HTTP_REQUEST_TIMEOUT_MS', 60_000, 1000, 3_600_000),
    trustProxy: parseTrustProxy(get('TRUST_PROXY')),
    corsOrigins: parseCorsOrigins(get('CORS_ORIGINS')),
    warnings,
  } satisfies AppConfig);
  return config;
}

/**
 * `WEBHOOK_PROXY_URL` (docs/configuration.md): unset or blank for none, else an `http:` URL of
 * a host and an optional port, user and password (percent-encoded, each `%` starting a valid
 * escape), with no path, query or fragment.
 * @throws ConfigError naming WEBHOOK_PROXY_URL otherwise; the message never repeats the value,
 *   which may hold a password.
 */
export function parseProxyUrl(raw: string | undefined): URL | null {
  if (raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError('WEBHOOK_PROXY_URL', 'is not a valid URL (http://host:port)');
  }
  if (url.protocol !== 'http:') {
    throw new ConfigError('WEBHOOK_PROXY_URL', 'must use http: (the proxy is asked with CONNECT)');
  }
  if (url.hostname === '') throw new ConfigError('WEBHOOK_PROXY_URL', 'needs a host');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new ConfigError('WEBHOOK_PROXY_URL', 'must be http://[user:password@]host[:port] only');
  }
  // The proxy's credentials are sent decoded (Proxy-Authorization): a bad %-escape would only
  // fail when the first delivery is sent, or at start after the database is made.
  for (const [part, value] of [
    ['user', url.username],
    ['password', url.password],
  ] as const) {
    try {
      decodeURIComponent(value);
    } catch {
      throw new ConfigError(
        'WEBHOOK_PROXY_URL',
        `has a badly percent-encoded ${part} (write % as %25, @ as %40, : as %3A)`,
      );
    }
  }
  return url;
}

function queuePrefix(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value)) {
    throw new ConfigError(
      'QUEUE_PREFIX',
      'must be 1 to 64 letters, digits, dots, dashes or underscores',
    );
  }
  return value;
}

function parseCorsOrigins(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw.split(',').map((origin) => {
    const trimmed = origin.trim();
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      throw new ConfigError(
        'CORS_ORIGINS',
        `has "${trimmed}"; expected origins like https://app.example.com`,
      );
    }
    if (parsed.origin !== trimmed) {
      throw new ConfigError(
        'CORS_ORIGINS',
        `has "${trimmed}"; expected an origin (scheme://host[:port]) without a path`,
      );
    }
    return trimmed;
  });
}

/** Whether `entry` is an IPv4 (four-part decimal) or IPv6 address, or a CIDR of one. */
function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...extra] = entry.split('/');
  if (extra.length > 0) return false;
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!v4 && !ipaddr.IPv6.isValid(address)) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (v4 ? 32 : 128);
}

/**
 * Reads `TRUST_PROXY`: which proxies' `X-Forwarded-For` the client IP (import records, the
 * token exchange's rate limit) is taken from.
 *
 * @param raw the trimmed value, or undefined when unset.
 * @returns `false` (unset or `false`: the socket address is the client) or the proxies' IP
 *   addresses/CIDRs, in order.
 * @throws ConfigError naming TRUST_PROXY for `true` (any client could choose its IP), for a
 *   hop count (it cannot tell a proxy from a client connecting directly; Fastify 5 ignores
 *   one anyway), or for an entry that is not an IP address or CIDR.
 */
function parseTrustProxy(raw: string | undefined): false | string[] {
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') {
    throw new ConfigError(
      'TRUST_PROXY',
      'must not be true: trusting every proxy lets any client choose its IP (and rate-limit ' +
        "identity) with X-Forwarded-For; list your proxies' addresses/CIDRs instead " +
        '(e.g. 10.0.0.0/8,::1)',
    );
  }
  if (/^\d+$/.test(raw)) {
    // Fastify 5 ignores a numeric trustProxy (it trusts nothing), and a hop count alone
    // cannot tell a proxy from a client that reaches the service directly.
    throw new ConfigError(
      'TRUST_PROXY',
      `must not be a hop count ("${raw}"): a hop count cannot tell a proxy from a client ` +
        "that reaches the service directly; list your proxies' addresses/CIDRs instead",
    );
  }
  return raw.split(',').map((item) => {
    const entry = item.trim();
    if (!isAddressOrCidr(entry)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `has "${entry}"; expected false or IP addresses/CIDRs like 10.0.0.0/8,::1`,
      );
    }
    return entry;
  });
}
