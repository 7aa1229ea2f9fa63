import type { ConnectionOptions, RedisOptions as BullRedisOptions } from 'bullmq';
import IORedis, { Cluster, type ClusterOptions, type Redis, type RedisOptions } from 'ioredis';

/** How `REDIS_URL` reaches Redis (docs/operations.md#redis-cluster-and-sentinel). */
export type RedisTopology = 'single' | 'cluster' | 'sentinel';

/** One `host:port` of a cluster's seed nodes or of the sentinels. */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * `REDIS_URL` read into what ioredis needs. Holds the password: never log it.
 */
export interface RedisTarget {
  topology: RedisTopology;
  /** The URL as given: `redis://` and `rediss://` go to ioredis as they are. */
  url: string;
  /** Cluster seed nodes or sentinels (empty for a single node). */
  nodes: RedisNode[];
  /** TLS to the Redis nodes (and to the sentinels): `rediss+cluster://`, `rediss+sentinel://`. */
  tls: boolean;
  username?: string;
  password?: string;
  /** The sentinels' name of the primary (`?name=`), sentinel only. */
  sentinelName?: string;
  /** Credentials of the sentinels themselves (`sentinel_username`, `sentinel_password`). */
  sentinelUsername?: string;
  sentinelPassword?: string;
  /** Database number (sentinel: the URL's path; a cluster has only database 0). */
  db: number;
}

/** Why a `REDIS_URL` cannot be used: one line, without the URL (it may hold a password). */
export class RedisUrlError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'RedisUrlError';
  }
}

const DEFAULT_PORT: Record<RedisTopology, number> = {
  single: 6379,
  cluster: 6379,
  sentinel: 26379,
};

const SCHEME = /^(rediss?)(?:\+(cluster|sentinel))?:\/\//i;

/**
 * Reads `REDIS_URL` in one of its three forms (docs/configuration.md):
 *
 * - `redis://[user:password@]host:port[/db]` and `rediss://…`: one Redis;
 * - `redis+cluster://[user:password@]host1:port1,host2:port2,…` (`rediss+cluster://` for TLS):
 *   seed nodes of a Redis Cluster, from which ioredis learns the others;
 * - `redis+sentinel://[user:password@]host1:port1,host2:port2,…[/db]?name=mymaster`
 *   (`rediss+sentinel://` for TLS), with optional `sentinel_username` and
 *   `sentinel_password`: the sentinels, which name the current primary. `user:password` is
 *   for the Redis nodes; the sentinels take the `sentinel_` ones.
 *
 * Ports default to 6379 (26379 for sentinels). Pure.
 *
 * @throws RedisUrlError with a one-line reason that never repeats the password.
 */
export function parseRedisUrl(raw: string): RedisTarget {
  const scheme = SCHEME.exec(raw);
  if (!scheme) {
    throw new RedisUrlError(
      'must start with redis://, rediss://, redis+cluster://, rediss+cluster://, ' +
        'redis+sentinel:// or rediss+sentinel://',
    );
  }
  const tls = scheme[1].toLowerCase() === 'rediss';
  const topology = (scheme[2]?.toLowerCase() ?? 'single') as RedisTopology;
  if (topology === 'single') {
    try {
      new URL(raw);
    } catch {
      throw new RedisUrlError('is not a valid URL');
    }
    return { topology, url: raw, nodes: [], tls, db: 0 };
  }

  const rest = raw.slice(scheme[0].length);
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) throw new RedisUrlError('must not have a #fragment');
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt >= 0 ? rest.slice(0, queryAt) : rest;
  const query = new URLSearchParams(queryAt >= 0 ? rest.slice(queryAt + 1) : '');
  const slashAt = beforeQuery.indexOf('/');
  const authority = slashAt >= 0 ? beforeQuery.slice(0, slashAt) : beforeQuery;
  const path = slashAt >= 0 ? beforeQuery.slice(slashAt + 1) : '';
  const atAt = authority.lastIndexOf('@');
  const userInfo = atAt >= 0 ? authority.slice(0, atAt) : undefined;
  const hostList = atAt >= 0 ? authority.slice(atAt + 1) : authority;

  const target: RedisTarget = { topology, url: raw, nodes: [], tls, db: 0 };
  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(':');
    const user = decode(colon >= 0 ? userInfo.slice(0, colon) : userInfo, 'user name');
    const password = colon >= 0 ? decode(userInfo.slice(colon + 1), 'password') : undefined;
    if (user !== '') target.username = user;
    if (password !== undefined && password !== '') target.password = password;
  }
  if (hostList === '') throw new RedisUrlError(`names no ${nodeWord(topology)}s`);
  target.nodes = hostList.split(',').map((item) => parseNode(item, topology));

  if (path !== '') {
    if (!/^\d{1,2}$/.test(path)) {
      throw new RedisUrlError(`has the path "/${path}"; expected nothing or a database number`);
    }
    target.db = Number(path);
    if (topology === 'cluster' && target.db !== 0) {
      throw new RedisUrlError('names database ' + path + '; a Redis Cluster has only database 0');
    }
  }

  const allowed = topology === 'sentinel' ? ['name', 'sentinel_username', 'sentinel_password'] : [];
  for (const key of query.keys()) {
    if (!allowed.includes(key)) {
      throw new RedisUrlError(
        allowed.length === 0
          ? `has the parameter "${key}"; a cluster URL takes none`
          : `has the parameter "${key}"; expected only ${allowed.join(', ')}`,
      );
    }
  }
  if (topology === 'sentinel') {
    const name = query.get('name');
    if (name === null || name === '') {
      throw new RedisUrlError(
        "needs the primary's name as the sentinels know it: redis+sentinel://host:26379,…/?name=mymaster",
      );
    }
    target.sentinelName = name;
    const sentinelUsername = query.get('sentinel_username');
    const sentinelPassword = query.get('sentinel_password');
    if (sentinelUsername) target.sentinelUsername = sentinelUsername;
    if (sentinelPassword) target.sentinelPassword = sentinelPassword;
  }
  return target;
}

function nodeWord(topology: RedisTopology): string {
  return topology === 'sentinel' ? 'sentinel' : 'cluster node';
}

function decode(value: string, what: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new RedisUrlError(`has a badly percent-encoded ${what}`);
  }
}

function parseNode(item: string, topology: RedisTopology): RedisNode {
  const entry = item.trim();
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(entry);
  const port = match?.[3] === undefined ? DEFAULT_PORT[topology] : Number(match[3]);
  if (!match || port < 1 || port > 65535) {
    throw new RedisUrlError(
      `has "${entry}" where a ${nodeWord(topology)} was expected; list them as host:port,host:port`,
    );
  }
  return { host: match[1] ?? match[2], port };
}

/**
 * The Redis key prefix of BullMQ's queues for a deployment namespace (`QUEUE_PREFIX` or the
 * derived one): `{namespace}`. The braces make it a Redis Cluster hash tag, so every key of a
 * queue lands in one slot, as BullMQ's multi-key scripts require; on one Redis or under
 * Sentinel the braces are just characters of the name (docs/operations.md#redis-cluster-and-sentinel).
 */
export function queueKeyPrefix(namespace: string): string {
  return `{${namespace}}`;
}

/** The longest wait between two reconnection tries to Redis, in ms, whatever its mode. */
export const RECONNECT_MAX_DELAY_MS = 500;

/**
 * How long a client waits before its `times`-th reconnection try (docs/operations.md#redis-cluster-and-sentinel):
 * 100 ms more each time, at most {@link RECONNECT_MAX_DELAY_MS}. ioredis's own default grows
 * to 2 s and BullMQ's to 20 s, which left dispatch and readiness down for seconds after Redis
 * was back (8.2 s seen after a restart); at most half a second, a restarted Redis, a promoted
 * Sentinel primary or a cluster whose shard is back is used again within about that. Never
 * gives up: each try is one connection attempt, cheap while Redis is away.
 */
export function reconnectDelay(times: number): number {
  return Math.min(Math.max(times, 1) * 100, RECONNECT_MAX_DELAY_MS);
}

/** A client of either kind: ioredis's `Redis` (one node, Sentinel) or `Cluster`. */
export type RedisClient = Redis | Cluster;

/** Options of ioredis's `Redis` for one node or for Sentinel: everything but the per-use `options`. */
function nodeOptions(target: RedisTarget, options: RedisOptions): RedisOptions {
  const credentials: RedisOptions = {
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.tls ? { tls: {} } : {}),
  };
  if (target.topology === 'sentinel') {
    return {
      ...options,
      ...credentials,
      db: target.db,
      sentinels: target.nodes,
      name: target.sentinelName,
      ...(target.sentinelUsername ? { sentinelUsername: target.sentinelUsername } : {}),
      ...(target.sentinelPassword ? { sentinelPassword: target.sentinelPassword } : {}),
      ...(target.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
    };
  }
  return { ...options, ...credentials };
}

/**
 * Cluster options for per-node `options`: connection failures and retries go to the cluster's
 * own settings (`clusterRetryStrategy`, `enableOfflineQueue`), the rest to each node.
 */
function clusterOptions(target: RedisTarget, options: RedisOptions): ClusterOptions {
  const { retryStrategy, enableOfflineQueue, lazyConnect, ...perNode } = options;
  return {
    redisOptions: nodeOptions(target, perNode),
    ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    // With TLS, connect to the names the nodes announce unresolved, so that each certificate
    // is checked against the name it was issued for (ioredis's advice for TLS clusters).
    ...(target.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
  };
}

/**
 * Opens an ioredis client to `REDIS_URL`, whatever its form: the one place every user of
 * Redis (the namespace claim, rate limits and sign-in limits, BullMQ through
 * {@link bullConnection}, tests) connects from. `options` are ioredis's, as for one node;
 * for a cluster `retryStrategy`, `enableOfflineQueue` and `lazyConnect` apply to the
 * cluster and the others to each node. Without a `retryStrategy` of its own a client
 * reconnects after {@link reconnectDelay}.
 */
export function createRedisClient(target: RedisTarget, given: RedisOptions = {}): RedisClient {
  const options: RedisOptions = { retryStrategy: reconnectDelay, ...given };
  switch (target.topology) {
    case 'cluster':
      return new Cluster(target.nodes, clusterOptions(target, options));
    case 'sentinel':
      return new IORedis(nodeOptions(target, options));
    default:
      return new IORedis(target.url, options);
  }
}

/**
 * BullMQ's `connection` for `REDIS_URL`: options for one node or Sentinel (BullMQ opens and
 * closes its connections itself), or, for a cluster, a `Cluster` client that BullMQ's queues
 * share and its workers duplicate. BullMQ never closes a client it is given: whoever calls
 * this with a cluster target closes the client (`QueueConnection` does). In every mode a lost
 * connection is tried again after {@link reconnectDelay} (at most half a second), not after
 * BullMQ's default back-off (up to 20 s): a restarted Redis, a promoted Sentinel primary or a
 * cluster shard that is back is taken up at once.
 */
export function bullConnection(target: RedisTarget): ConnectionOptions {
  // Workers block on Redis: they need maxRetriesPerRequest null.
  const options: RedisOptions = { maxRetriesPerRequest: null, retryStrategy: reconnectDelay };
  if (target.topology === 'cluster') {
    return new Cluster(target.nodes, clusterOptions(target, options));
  }
  if (target.topology === 'sentinel') {
    return nodeOptions(target, options) as BullRedisOptions;
  }
  return { url: target.url, ...options } as BullRedisOptions;
}
