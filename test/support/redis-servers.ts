import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './eventually';

/**
 * Local Redis servers for the tests of Redis Cluster and Sentinel (Debian's `redis-server`
 * and `redis-cli`): each on free loopback ports, in a temporary directory of its own, with no
 * persistence. Nothing here touches the shared Redis on port 6379.
 */

/** Every server started by this file, killed when the test process exits whatever happened. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Whether `port` can be bound on 127.0.0.1 now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/**
 * A free loopback port (not handed out before by this process); with `bus`, its cluster bus
 * port (port + 10000) is free too.
 */
export async function freePort({ bus = false } = {}): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || (bus && taken.has(port + 10_000))) continue;
    if (!(await isFree(port)) || (bus && !(await isFree(port + 10_000)))) continue;
    taken.add(port);
    if (bus) taken.add(port + 10_000);
    return port;
  }
  throw new Error('no free loopback port found');
}

/** Runs `redis-cli` with `args`; resolves with its standard output. */
export function redisCli(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('redis-cli', args, { timeout: 30_000 }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`redis-cli ${args.join(' ')}: ${stderr || error.message}`))
        : resolve(stdout),
    ),
  );
}

/** One `redis-server` process (a Redis node or, with `--sentinel`, a sentinel). */
export class RedisServer {
  output = '';
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(
    readonly port: number,
    readonly args: string[],
  ) {
    this.child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(this.child);
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.once('exit', () => {
        running.delete(this.child);
        resolve();
      }),
    );
  }

  /** Resolves once the server answers PING. */
  async ready(timeoutMs = 15_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        if ((await redisCli('-p', String(this.port), 'PING')).trim() === 'PONG') return this;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline || this.child.exitCode !== null) {
        throw new Error(`redis-server on ${this.port} did not start:\n${this.output}`);
      }
      await sleep(100);
    }
  }

  /** Kills the process with `signal` and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }
}

/** Arguments of a Redis node without persistence on `port`, working in `dir`. */
function nodeArgs(port: number, dir: string, extra: string[] = []): string[] {
  return [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dir,
    '--save', '',
    '--appendonly', 'no',
    '--daemonize', 'no',
    ...extra,
  ]; // prettier-ignore
}

/** A local Redis Cluster of `masters` primaries and no replicas. */
export class LocalRedisCluster {
  private constructor(
    readonly nodes: RedisServer[],
    private readonly dir: string,
  ) {}

  /** `REDIS_URL` of the cluster: `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,…`. */
  get url(): string {
    return `redis+cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`;
  }

  /** Starts the nodes, joins them with `redis-cli --cluster create`, waits for `cluster_state:ok`. */
  static async start(masters = 3): Promise<LocalRedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'campaign-api-cluster-'));
    const nodes: RedisServer[] = [];
    const cluster = new LocalRedisCluster(nodes, dir);
    try {
      for (let i = 0; i < masters; i++) {
        const port = await freePort({ bus: true });
        nodes.push(
          new RedisServer(
            port,
            nodeArgs(port, dir, [
              '--cluster-enabled', 'yes',
              '--cluster-config-file', join(dir, `nodes-${port}.conf`),
              '--cluster-node-timeout', '2000',
            ]), // prettier-ignore
          ),
        );
      }
      await Promise.all(nodes.map((n) => n.ready()));
      await redisCli(
        '--cluster', 'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas', '0',
        '--cluster-yes',
      ); // prettier-ignore
      const deadline = Date.now() + 30_000;
      for (;;) {
        const states = await Promise.all(
          nodes.map((n) => redisCli('-p', String(n.port), 'CLUSTER', 'INFO')),
        );
        if (states.every((info) => info.includes('cluster_state:ok'))) return cluster;
        if (Date.now() > deadline) throw new Error(`cluster not ok:\n${states.join('\n')}`);
        await sleep(200);
      }
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /**
   * The node serving the cluster slot of `key` (a hash tag such as `{ns}` is enough), by
   * `CLUSTER NODES` as node 0 sees it.
   */
  async nodeOfKey(key: string): Promise<RedisServer> {
    const port = String(this.nodes[0].port);
    const slot = Number((await redisCli('-p', port, 'CLUSTER', 'KEYSLOT', key)).trim());
    for (const line of (await redisCli('-p', port, 'CLUSTER', 'NODES')).split('\n')) {
      const [, address, , , , , , , ...ranges] = line.trim().split(' ');
      const serves = ranges.some((range) => {
        const [from, to = from] = range.split('-').map(Number);
        return slot >= from && slot <= to;
      });
      const node = this.nodes.find((n) => address?.startsWith(`127.0.0.1:${n.port}@`));
      if (serves && node) return node;
    }
    throw new Error(`no node serves the slot ${slot} of ${key}`);
  }

  /** Starts node `node` (killed before) again with its own configuration, and waits for PING. */
  async restart(node: RedisServer): Promise<void> {
    const index = this.nodes.indexOf(node);
    await node.kill();
    this.nodes[index] = await new RedisServer(node.port, node.args).ready();
  }

  /** Kills every node and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A primary, one replica and three sentinels watching them (quorum 2, the primary taken for
 * down after 1 s without an answer).
 */
export class LocalRedisSentinel {
  /** The sentinels' name of the primary. */
  readonly name = `primary-${process.pid}`;

  private constructor(
    readonly primary: RedisServer,
    readonly replica: RedisServer,
    readonly sentinels: RedisServer[],
    private readonly dir: string,
  ) {}

  /** `REDIS_URL` for the service: `redis+sentinel://127.0.0.1:S1,…/?name=<name>`. */
  get url(): string {
    const hosts = this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
    return `redis+sentinel://${hosts}/?name=${this.name}`;
  }

  static async start(): Promise<LocalRedisSentinel> {
    const dir = mkdtempSync(join(tmpdir(), 'campaign-api-sentinel-'));
    const servers: RedisServer[] = [];
    try {
      const primaryPort = await freePort();
      const primary = new RedisServer(primaryPort, nodeArgs(primaryPort, dir));
      servers.push(primary);
      await primary.ready();
      const replicaPort = await freePort();
      const replica = new RedisServer(
        replicaPort,
        nodeArgs(replicaPort, dir, ['--replicaof', '127.0.0.1', String(primaryPort)]),
      );
      servers.push(replica);
      await replica.ready();
      const set = new LocalRedisSentinel(primary, replica, [], dir);
      for (let i = 0; i < 3; i++) {
        const port = await freePort();
        const config = join(dir, `sentinel-${port}.conf`);
        writeFileSync(
          config,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            'daemonize no',
            `dir ${dir}`,
            `sentinel monitor ${set.name} 127.0.0.1 ${primaryPort} 2`,
            `sentinel down-after-milliseconds ${set.name} 1000`,
            `sentinel failover-timeout ${set.name} 3000`,
            `sentinel parallel-syncs ${set.name} 1`,
          ].join('\n') + '\n',
        );
        const sentinel = new RedisServer(port, [config, '--sentinel']);
        servers.push(sentinel);
        set.sentinels.push(sentinel);
      }
      await Promise.all(set.sentinels.map((s) => s.ready()));
      await set.waitForPrimary(primaryPort);
      return set;
    } catch (error) {
      await Promise.all(servers.map((s) => s.kill()));
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The port every sentinel names as the primary, once they agree (and know the replica). */
  async waitForPrimary(port: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answers = await Promise.all(
        this.sentinels.map((s) =>
          redisCli('-p', String(s.port), 'SENTINEL', 'get-master-addr-by-name', this.name).catch(
            () => '',
          ),
        ),
      );
      const replicas = await redisCli(
        '-p', String(this.sentinels[0].port), 'SENTINEL', 'replicas', this.name,
      ).catch(() => ''); // prettier-ignore
      if (answers.every((a) => a.split('\n')[1]?.trim() === String(port)) && replicas.trim() !== '')
        return;
      if (Date.now() > deadline) {
        throw new Error(`sentinels do not agree on the primary ${port}: ${answers.join(' | ')}`);
      }
      await sleep(200);
    }
  }

  /** Kills every process and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all([this.primary, this.replica, ...this.sentinels].map((s) => s.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
