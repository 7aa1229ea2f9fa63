import { Cluster } from 'ioredis';
import {
  bullConnection,
  createRedisClient,
  parseRedisUrl,
  queueKeyPrefix,
  reconnectDelay,
} from './redis-connection';

describe('Redis connections (docs/operations.md#redis-cluster-and-sentinel)', () => {
  it('hash-tags the queue prefix, so that all of a queue’s keys share one cluster slot', () => {
    expect(queueKeyPrefix('campaign-api-1a2b3c4d5e6f')).toBe('{campaign-api-1a2b3c4d5e6f}');
  });

  it('gives BullMQ the URL of one Redis, with the blocking-safe maxRetriesPerRequest', () => {
    expect(bullConnection(parseRedisUrl('redis://:pw@cache:6380/1'))).toEqual({
      url: 'redis://:pw@cache:6380/1',
      maxRetriesPerRequest: null,
      retryStrategy: reconnectDelay,
    });
  });

  it('reconnects after 100 ms more each try, never more than 500 ms, and never gives up', () => {
    expect([0, 1, 2, 4, 5, 6, 50, 10_000].map(reconnectDelay)).toEqual([
      100, 100, 200, 400, 500, 500, 500, 500,
    ]);
  });

  it('caps the reconnection delay in every mode: one Redis, Sentinel, Cluster, and every other client', () => {
    const single = bullConnection(parseRedisUrl('redis://cache:6380')) as Record<string, unknown>;
    const sentinel = bullConnection(
      parseRedisUrl('redis+sentinel://s1:26379?name=mymaster'),
    ) as Record<string, unknown>;
    const cluster = bullConnection(parseRedisUrl('redis+cluster://a:7000')) as Cluster;
    const own = createRedisClient(parseRedisUrl('redis://cache:6380'), { lazyConnect: true });
    const ownCluster = createRedisClient(parseRedisUrl('redis+cluster://a:7000'), {
      lazyConnect: true,
    }) as Cluster;
    try {
      const delays = [
        single.retryStrategy,
        sentinel.retryStrategy,
        cluster.options.clusterRetryStrategy,
        (own.options as { retryStrategy?: unknown }).retryStrategy,
        ownCluster.options.clusterRetryStrategy,
      ].map((retry) => [1, 3, 30, 300].map((times) => (retry as (n: number) => number)(times)));
      expect(delays).toEqual(Array.from({ length: 5 }, () => [100, 300, 500, 500]));
    } finally {
      cluster.disconnect();
      own.disconnect();
      ownCluster.disconnect();
    }
  });

  it('gives BullMQ sentinel options: sentinels, primary name, database, credentials, TLS to both, quick retries', () => {
    const options = bullConnection(
      parseRedisUrl(
        'rediss+sentinel://app:pw@s1:26379,s2:26380/2?name=mymaster&sentinel_password=sp',
      ),
    ) as Record<string, unknown>;
    expect(options).toMatchObject({
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      name: 'mymaster',
      db: 2,
      username: 'app',
      password: 'pw',
      sentinelPassword: 'sp',
      tls: {},
      sentinelTLS: {},
      enableTLSForSentinelMode: true,
      maxRetriesPerRequest: null,
    });
    const retry = options.retryStrategy as (times: number) => number;
    expect([1, 3, 100].map(retry)).toEqual([100, 300, 500]);
  });

  it('gives BullMQ one Cluster client over the seed nodes, node options applied to each node', () => {
    const cluster = bullConnection(parseRedisUrl('redis+cluster://:pw@a:7000,b:7001'));
    expect(cluster).toBeInstanceOf(Cluster);
    try {
      const c = cluster as Cluster;
      expect(c.options.redisOptions).toMatchObject({ password: 'pw', maxRetriesPerRequest: null });
      expect((c as unknown as { startupNodes: unknown }).startupNodes).toEqual([
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ]);
    } finally {
      (cluster as Cluster).disconnect();
    }
  });

  it('moves retry, offline-queue and lazy-connect options to the cluster itself', () => {
    const client = createRedisClient(parseRedisUrl('redis+cluster://a:7000'), {
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
      connectTimeout: 2000,
    }) as Cluster;
    expect(client).toBeInstanceOf(Cluster);
    expect(client.status).toBe('wait');
    expect(client.options).toMatchObject({ lazyConnect: true, enableOfflineQueue: false });
    expect(client.options.clusterRetryStrategy?.(1, new Error('x'))).toBeNull();
    expect(client.options.redisOptions).toEqual({ connectTimeout: 2000 });
    client.disconnect();
  });
});
