import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, parseProxyUrl, type AppConfig } from '../../config/app-config';
import { openTunnel, outboundProxy } from './proxy-tunnel';
import { WebhookSender } from './webhook.sender';

/** A TCP server answering every connection with `answer` (or never, when null). */
async function fakeProxy(
  answer: string | null,
): Promise<{ server: ReturnType<typeof createTcpServer>; port: number }> {
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => {
      if (answer !== null) socket.end(answer);
    });
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const closeServer = (server: { close: (cb: () => void) => unknown }) =>
  new Promise<void>((resolve) => server.close(() => resolve()));

describe('the outbound proxy (docs/webhooks.md#outbound-proxy)', () => {
  describe('WEBHOOK_PROXY_URL', () => {
    it('takes an http URL with optional credentials, and none when unset or blank', () => {
      expect(parseProxyUrl(undefined)).toBeNull();
      expect(parseProxyUrl('  ')).toBeNull();
      const url = parseProxyUrl('http://egress:p%40ss%20word@proxy.internal:3128')!;
      expect(outboundProxy(url)).toEqual({
        host: 'proxy.internal',
        port: 3128,
        authorization: `Basic ${Buffer.from('egress:p@ss word').toString('base64')}`,
      });
      expect(outboundProxy(parseProxyUrl('http://proxy.internal')!)).toEqual({
        host: 'proxy.internal',
        port: 80,
        authorization: null,
      });
    });

    it.each([
      ['not a url', 'is not a valid URL'],
      ['https://proxy.internal:3128', 'must use http:'],
      ['socks5://proxy.internal:1080', 'must use http:'],
      [
        'http://user:secret@proxy.internal:3128/path',
        'must be http://[user:password@]host[:port] only',
      ],
    ])('refuses %s without repeating it', (value, message) => {
      const run = () => parseProxyUrl(value);
      expect(run).toThrow(ConfigError);
      expect(run).toThrow(
        expect.objectContaining({
          message: expect.stringMatching(new RegExp(`WEBHOOK_PROXY_URL .*${escape(message)}`)),
        }),
      );
      expect(run).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('secret') }),
      );
    });
  });

  describe('openTunnel', () => {
    it('says the proxy refused the tunnel, with its status', async () => {
      const { server, port } = await fakeProxy(
        'HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n',
      );
      await expect(
        openTunnel({ host: '127.0.0.1', port, authorization: null }, '192.0.2.1:443', 2000),
      ).rejects.toThrow('proxy refused the tunnel: 407');
      await closeServer(server);
    });

    it('says a proxy that answers something else than HTTP did', async () => {
      const { server, port } = await fakeProxy('SSH-2.0-OpenSSH\r\n\r\n');
      await expect(
        openTunnel({ host: '127.0.0.1', port, authorization: null }, '192.0.2.1:443', 2000),
      ).rejects.toThrow('proxy answered something that is not HTTP');
      await closeServer(server);
    });

    it('says an unreachable proxy is unreachable', async () => {
      const { server, port } = await fakeProxy(null);
      await closeServer(server);
      await expect(
        openTunnel({ host: '127.0.0.1', port, authorization: null }, '192.0.2.1:443', 2000),
      ).rejects.toThrow('proxy unreachable: connection refused');
    });

    it('gives up on a silent proxy after the time limit, as a connect timeout', async () => {
      const { server, port } = await fakeProxy(null);
      const started = Date.now();
      await expect(
        openTunnel({ host: '127.0.0.1', port, authorization: null }, '192.0.2.1:443', 200),
      ).rejects.toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(2000);
      await closeServer(server);
    });

    it('sends the credentials as Proxy-Authorization and hands over the tunnel, paused', async () => {
      let asked = '';
      const proxy: Server = createHttpServer();
      proxy.on('connect', (req, socket: Socket) => {
        asked = `${req.url} ${req.headers['proxy-authorization']}`;
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\nhello');
        socket.end();
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const { port } = proxy.address() as AddressInfo;
      const socket = await openTunnel(
        { host: '127.0.0.1', port, authorization: 'Basic eDp5' },
        '192.0.2.1:443',
        2000,
      );
      // Handed over paused, for undici to read on 'readable'.
      expect(socket.isPaused()).toBe(true);
      const bytes: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => bytes.push(chunk));
      socket.resume();
      await new Promise((resolve) => socket.on('end', resolve));
      // What the proxy sent right after its answer already belongs to the tunnel.
      expect(Buffer.concat(bytes).toString()).toBe('hello');
      expect(asked).toBe('192.0.2.1:443 Basic eDp5');
      await closeServer(proxy);
    });
  });

  describe('an https delivery through the proxy', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'proxy-tls-'));
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('tunnels to the resolved address and starts TLS inside with the host name as SNI', async () => {
      let servername: string | undefined;
      const receiver = createHttpsServer({
        key: readFileSync(join(dir, 'key.pem')),
        cert: readFileSync(join(dir, 'cert.pem')),
        SNICallback: (name, callback) => {
          servername = name;
          callback(null, undefined);
        },
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const targets: string[] = [];
      const proxy: Server = createHttpServer();
      proxy.on('connect', (req, client: Socket) => {
        targets.push(req.url ?? '');
        const [host, port] = (req.url ?? '').split(':');
        const upstream = connect(Number(port), host, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const config = {
        webhookTimeoutMs: 3000,
        webhookAllowPrivateUrls: true,
        webhookProxyUrl: new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`),
      } as AppConfig;
      const sender = new WebhookSender(config);
      const { port } = receiver.address() as AddressInfo;
      const localhost = (await import('node:dns/promises')).lookup('localhost');
      const result = await sender.send(
        `https://localhost:${port}/hooks`,
        ['whsec_' + 'a'.repeat(32)],
        {
          id: 'msg_1',
          body: '{}',
        },
      );
      // The receiver's certificate is self-signed, so the sender refuses it: after the handshake
      // began inside the tunnel, with the name the URL gave.
      expect(result.success).toBe(false);
      expect(result.error).toMatch(/self.signed|certificate/i);
      expect(servername).toBe('localhost');
      const first = await localhost;
      expect(targets).toEqual([
        first.family === 6 ? `[${first.address}]:${port}` : `${first.address}:${port}`,
      ]);
      await sender.onModuleDestroy();
      await closeServer(proxy);
      await closeServer(receiver);
    });
  });
});
