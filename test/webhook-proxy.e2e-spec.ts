/**
 * The outbound proxy, end to end (docs/webhooks.md#outbound-proxy): with `WEBHOOK_PROXY_URL`
 * set, every attempt (scheduled deliveries, retries, test events) goes through a local CONNECT
 * proxy written here, which counts its tunnels and where each goes. The tunnel goes to the
 * address the service resolved and checked, never to a host name; the address policy still
 * refuses a forbidden target; a proxy that refuses the tunnel fails the attempt, which is
 * retried; the proxy's credentials reach no attempt row.
 */
import { spawnSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './support/env';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import { eventually } from './support/eventually';
import { startTestApp, type TestApp } from './support/test-app';
import { madeUpEvent } from './support/events';

const PROXY_USER = 'egress';
const PROXY_PASSWORD = 'pr0xy p@ss';

/** A CONNECT proxy that records each tunnel it was asked for; `refuse` answers that status instead. */
class ConnectProxy {
  readonly tunnels: Array<{ target: string; authorization: string | undefined }> = [];
  refuse: number | null = null;
  private readonly server: Server = createServer((_req, res) => {
    res.statusCode = 405;
    res.end();
  });
  private readonly sockets = new Set<Socket>();

  async start(): Promise<this> {
    this.server.on('connect', (req, client: Socket, head: Buffer) => {
      this.sockets.add(client);
      this.tunnels.push({
        target: req.url ?? '',
        authorization: req.headers['proxy-authorization'],
      });
      if (this.refuse !== null) {
        client.end(`HTTP/1.1 ${this.refuse} Refused\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      const { hostname, port } = new URL(`http://${req.url}`);
      const upstream = connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      this.sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://${PROXY_USER}:${encodeURIComponent(PROXY_PASSWORD)}@127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A receiver on `address` answering 204 with `Connection: close`, so each attempt is a new connection. */
async function startReceiver(address: string) {
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.headers);
      res.writeHead(204, { connection: 'close' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  return { server, received, port };
}

describe('Outbound proxy (docs/webhooks.md#outbound-proxy)', () => {
  let proxy: ConnectProxy;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** What `localhost` resolves to first: where the tunnel of a `localhost` URL must go. */
  let loopback: { address: string; family: number };
  let t: TestApp;

  beforeAll(async () => {
    proxy = await new ConnectProxy().start();
    loopback = await lookup('localhost');
    receiver = await startReceiver(loopback.address);
    t = await startTestApp({ WEBHOOK_PROXY_URL: proxy.url, WEBHOOK_RETRY_SCHEDULE: '1s' });
  });
  afterAll(async () => {
    await t.close();
    await proxy.stop();
    receiver.server.closeAllConnections();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  });

  const authority = () =>
    loopback.family === 6
      ? `[${loopback.address}]:${receiver.port}`
      : `${loopback.address}:${receiver.port}`;
  const basic = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`;

  async function attemptsOf(endpointId: number) {
    return (await t.db.query(
      'SELECT success, error, request_url, request_headers FROM webhook_delivery_attempt WHERE endpoint_id = $1 ORDER BY id',
      [endpointId],
    )) as Array<{ success: boolean; error: string | null; request_url: string }>;
  }

  it('sends every attempt through a tunnel to the checked address, never to the host name', async () => {
    const tunnelsBefore = proxy.tunnels.length;
    const receivedBefore = receiver.received.length;
    const campaignId = await t.given.campaign(await t.given.account());
    const { id } = await t.given.endpoint(campaignId, `http://localhost:${receiver.port}/hooks`, [
      'lead.created',
    ]);
    const publisher = t.app.get(WebhookEventPublisher);
    for (let i = 1; i <= 3; i++) {
      await publisher.publish(campaignId, [
        madeUpEvent('lead.created', { id: i, campaign_id: campaignId }),
      ]);
    }
    await t.app.get(DeliveryService).sendTest(id);
    await eventually(async () => expect(receiver.received.length - receivedBefore).toBe(4));
    await eventually(async () => expect(await attemptsOf(id)).toHaveLength(4));

    const attempts = await attemptsOf(id);
    expect(attempts.every((a) => a.success)).toBe(true);
    const tunnels = proxy.tunnels.slice(tunnelsBefore);
    expect(tunnels).toHaveLength(attempts.length);
    for (const tunnel of tunnels) {
      expect(tunnel).toEqual({ target: authority(), authorization: basic });
    }
    // The receiver saw the URL's host, as without a proxy.
    for (const headers of receiver.received.slice(receivedBefore)) {
      expect(headers.host).toBe(`localhost:${receiver.port}`);
    }
    expect(JSON.stringify(attempts)).not.toContain(PROXY_PASSWORD);
    expect(JSON.stringify(attempts)).not.toContain(encodeURIComponent(PROXY_PASSWORD));
  });

  it('fails an attempt the proxy refuses to tunnel, saying so, and retries it like a connection error', async () => {
    const campaignId = await t.given.campaign(await t.given.account());
    const { id } = await t.given.endpoint(campaignId, `http://localhost:${receiver.port}/hooks`, [
      'lead.created',
    ]);
    proxy.refuse = 407;
    const ping = await t.app.get(DeliveryService).sendTest(id);
    expect(ping).toMatchObject({ success: false, status_code: null });
    expect(ping.error).toBe('proxy refused the tunnel: 407');

    await t.app
      .get(WebhookEventPublisher)
      .publish(campaignId, [madeUpEvent('lead.created', { id: 9, campaign_id: campaignId })]);
    await eventually(async () => {
      const [delivery] = await t.db.query(
        'SELECT status, attempt_count, next_attempt_at FROM webhook_delivery WHERE endpoint_id = $1',
        [id],
      );
      expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
      expect(delivery.next_attempt_at).not.toBeNull();
    });
    proxy.refuse = null;
    await eventually(async () => {
      const [delivery] = await t.db.query(
        'SELECT status, attempt_count FROM webhook_delivery WHERE endpoint_id = $1',
        [id],
      );
      expect(delivery).toEqual({ status: 'succeeded', attempt_count: 2 });
    });
    const errors = (await attemptsOf(id)).map((a) => a.error);
    expect(errors).toEqual([
      'proxy refused the tunnel: 407',
      'proxy refused the tunnel: 407',
      null,
    ]);
  });

  describe('with private addresses forbidden', () => {
    let strict: TestApp;
    beforeAll(async () => {
      strict = await startTestApp({
        WEBHOOK_PROXY_URL: proxy.url,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'false',
        RUN_WORKER: 'false',
      });
    });
    afterAll(() => strict.close());

    it('still refuses a forbidden target, by name or by address, before asking the proxy', async () => {
      const tunnelsBefore = proxy.tunnels.length;
      const campaignId = await strict.given.campaign(await strict.given.account());
      for (const url of [
        `http://localhost:${receiver.port}/hooks`,
        `http://127.0.0.1:${receiver.port}/hooks`,
        `https://localhost:${receiver.port}/hooks`,
      ]) {
        const { id } = await strict.given.endpoint(campaignId, url, ['lead.created']);
        const attempt = await strict.app.get(DeliveryService).sendTest(id);
        expect(attempt).toMatchObject({ success: false, status_code: null });
        expect(attempt.error).toMatch(
          /^refused: (localhost|127\.0\.0\.1) resolves to .*not a public address$/,
        );
      }
      expect(proxy.tunnels.length).toBe(tunnelsBefore);
    });
  });
});

describe('WEBHOOK_PROXY_URL with badly percent-encoded credentials (docs/configuration.md)', () => {
  it('stops the start with one line naming the variable, before the database is made, never showing the password', async () => {
    const database = `${new URL(TEST_DATABASE_URL).pathname.slice(1)}_never`;
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${database}`;
    const run = spawnSync(process.execPath, ['dist/main.js'], {
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        WEBHOOK_PROXY_URL: 'http://proxyuser:s3cret%ZZ@127.0.0.1:3128',
        PORT: '0',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr:
        'Invalid configuration: WEBHOOK_PROXY_URL has a badly percent-encoded password (write % as %25, @ as %40, : as %3A)\n',
    });
    const pg = new Client({ connectionString: TEST_DATABASE_URL });
    await pg.connect();
    try {
      const { rows } = await pg.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      expect(rows).toEqual([]);
    } finally {
      await pg.end();
    }
  });
});
