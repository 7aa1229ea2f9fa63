import { connect, createServer, type Server, type Socket } from 'node:net';

/** A pattern waited for in the client → server byte stream (see {@link FaultProxy.waitForUpstream}). */
interface UpstreamWatch {
  text: string;
  resolve: () => void;
}

/**
 * A TCP proxy in front of PostgreSQL or Redis that a scenario controls, so outages are made
 * here and never by stopping the machine's servers. `cut()` destroys every open connection
 * (both sides) and stops listening, so new connections are refused, as when the server
 * goes away; `restore()` listens again on the same port.
 */
export class FaultProxy {
  port = 0;
  /** Connections accepted since start. */
  accepted = 0;
  /** Connections destroyed by cuts. */
  destroyedByCuts = 0;
  private server?: Server;
  private readonly clients = new Set<Socket>();
  private readonly upstreams = new Set<Socket>();
  private watches: UpstreamWatch[] = [];

  constructor(
    readonly name: string,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  get isUp(): boolean {
    return this.server !== undefined;
  }

  /** Open client connections. */
  get openConnections(): number {
    return this.clients.size;
  }

  get url(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Listens on 127.0.0.1 (a free port the first time, the same port afterwards). */
  async start(): Promise<this> {
    if (this.server) return this;
    const server = createServer((client) => this.accept(client));
    await listenOnPort(server, this.port);
    const address = server.address();
    if (typeof address === 'object' && address) this.port = address.port;
    this.server = server;
    return this;
  }

  /** The outage: every open connection is destroyed and new ones are refused. */
  async cut(): Promise<number> {
    const server = this.server;
    this.server = undefined;
    const closed = server
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    const destroyed = this.clients.size;
    for (const socket of [...this.clients, ...this.upstreams]) socket.destroy();
    this.clients.clear();
    this.upstreams.clear();
    this.destroyedByCuts += destroyed;
    await closed;
    return destroyed;
  }

  /** The end of the outage: listens again on the same port. */
  async restore(): Promise<void> {
    await this.start();
  }

  /**
   * Resolves when `text` passes from a client to the server (e.g. `lead_import` in the SQL of
   * an upload's transaction), so a fault can be injected at that exact moment.
   */
  waitForUpstream(text: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const watch: UpstreamWatch = {
        text,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.watches = this.watches.filter((w) => w !== watch);
        reject(new Error(`${this.name} proxy: no "${text}" sent upstream within ${timeoutMs} ms`));
      }, timeoutMs);
      this.watches.push(watch);
    });
  }

  async close(): Promise<void> {
    await this.cut();
    this.watches = [];
  }

  private accept(client: Socket): void {
    this.accepted++;
    const upstream = connect(this.targetPort, this.targetHost);
    this.clients.add(client);
    this.upstreams.add(upstream);
    client.on('close', () => this.clients.delete(client));
    upstream.on('close', () => this.upstreams.delete(upstream));
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      if (this.watches.length === 0) return;
      const text = tail + chunk.toString('latin1');
      tail = text.slice(-64);
      const hits = this.watches.filter((w) => text.includes(w.text));
      if (hits.length === 0) return;
      this.watches = this.watches.filter((w) => !hits.includes(w));
      hits.forEach((w) => w.resolve());
    });
    client.pipe(upstream).pipe(client);
  }
}

/**
 * Listens on 127.0.0.1:`port` (0: a free port). A port just released (a server restored
 * after a cut) can be busy for a moment: retried for up to 5 s, never another port taken.
 */
export async function listenOnPort(server: Server, port: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'EADDRINUSE' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
