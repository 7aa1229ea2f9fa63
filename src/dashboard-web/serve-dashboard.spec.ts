import Fastify, { type FastifyInstance } from 'fastify';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { installSecurityHeaders } from '../common/security-headers';
import { CSP_NONCE_PLACEHOLDER, dashboardWebPlugin } from './serve-dashboard';

const INDEX = `<!doctype html><html><head><meta property="csp-nonce" nonce="${CSP_NONCE_PLACEHOLDER}"><script type="module" src="/dashboard/assets/index-abc123.js" nonce="${CSP_NONCE_PLACEHOLDER}"></script></head><body><div id="root"></div></body></html>`;

/** Two portal links: one of an account with two origins, one of an account with none. */
const FRAMED = '11111111-1111-4111-8111-111111111111';
const UNFRAMED = '22222222-2222-4222-8222-222222222222';
async function portalFraming(id: string) {
  if (id === FRAMED) {
    return {
      frameAncestors: ['https://app.example.com', 'http://127.0.0.2:8080'],
      parentOrigin: 'https://app.example.com',
    };
  }
  if (id === UNFRAMED) return { frameAncestors: [], parentOrigin: 'https://gone.example.com' };
  return null;
}

/** A Fastify app like the service's: helmet with the API's policy, a 404 envelope, the plugin. */
async function appServing(root: string): Promise<FastifyInstance> {
  const app = Fastify();
  installSecurityHeaders(app, {
    contentSecurityPolicy: {
      directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'", "'unsafe-inline'"] },
    },
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.status(404).send({ error: 'not_found', message: 'Not found' }),
  );
  app.get('/api/v1/thing', async () => ({ ok: true }));
  app.get('/dashboard/api/session', async () => ({ user: null }));
  await app.register(dashboardWebPlugin, { root, portalFraming });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

interface Answer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: () => unknown;
}

/** GET `path` exactly as written (no URL normalisation), body kept as bytes → latin1 text. */
function get(
  app: FastifyInstance,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({
          statusCode: res.statusCode!,
          headers: res.headers,
          body,
          json: () => JSON.parse(body) as unknown,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashboardWebPlugin (serving the built browser app at /dashboard/)', () => {
  let root: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'dashboard-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX);
    writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(root, '.secret'), 'no');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log("app");'.repeat(50));
    writeFileSync(
      join(root, 'assets', 'index-abc123.js.gz'),
      gzipSync('console.log("app");'.repeat(50)),
    );
    app = await appServing(root);
  });

  afterAll(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves the portal page framed only by its account’s origins, without X-Frame-Options, naming its parent origin', async () => {
    const res = await get(app, `/portal/${FRAMED}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<div id="root">');
    expect(res.body).toContain(
      '<meta name="portal-parent-origin" content="https://app.example.com"></head>',
    );
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain('frame-ancestors https://app.example.com http://127.0.0.2:8080');
    expect(csp).toContain("img-src 'self' data: https:");
    expect(csp).toContain("script-src 'self';");
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it("frames the portal page of an account without portal origins nowhere (frame-ancestors 'none')", async () => {
    const res = await get(app, `/portal/${UNFRAMED}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it.each([`/portal/${FRAMED}?secret=cpl_x`, `/portal/${FRAMED}?`, `/portal/${FRAMED}?a=1`])(
    'refuses the portal page %s with any query string (400), never serving the page',
    async (url) => {
      const res = await get(app, url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'bad_request',
        message: expect.stringContaining('fragment'),
      });
      expect(res.body).not.toContain('<div id="root">');
    },
  );

  it('answers 404 for the portal page of an unknown link', async () => {
    expect((await get(app, '/portal/33333333-3333-4333-8333-333333333333')).statusCode).toBe(404);
  });

  it('keeps the standalone dashboard unframeable', async () => {
    const res = await get(app, '/dashboard/');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('redirects /dashboard to /dashboard/, keeping the query string', async () => {
    const res = await get(app, '/dashboard?x=1');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/dashboard/?x=1');
  });

  it('serves index.html at /dashboard/ uncached, with a fresh nonce in the page and the policy', async () => {
    const first = await get(app, '/dashboard/');
    const second = await get(app, '/dashboard/');
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-cache');
    const nonce = /nonce="([^"]+)"/.exec(first.body)![1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(first.body).not.toContain(CSP_NONCE_PLACEHOLDER);
    expect(second.body).not.toContain(nonce);
    const csp = first.headers['content-security-policy'] as string;
    expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(first.headers['x-frame-options']).toBe('DENY');
    // helmet's other headers stay.
    expect(first.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each(['/dashboard/campaigns', '/dashboard/endpoints/12/attempts', '/dashboard/index.html'])(
    'answers the deep link %s with the app',
    async (url) => {
      const res = await get(app, url);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<div id="root">');
    },
  );

  it('serves hashed assets for a year, precompressed when the client accepts gzip', async () => {
    const res = await get(app, '/dashboard/assets/index-abc123.js', { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
  });

  it('serves a top-level file of the build, revalidated on every use', async () => {
    const res = await get(app, '/dashboard/favicon.svg');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it.each([
    '/dashboard/assets/missing-123.js',
    '/dashboard/missing.js',
    '/dashboard/.secret',
    '/dashboard/campaigns/app.js',
    '/dashboard/%2e%2e/package.json',
    '/dashboard/api/unknown',
    '/dashboard/api',
  ])('answers %s with the 404 envelope, not the app', async (url) => {
    const res = await get(app, url);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'Not found' });
  });

  it('leaves the dashboard API and the public API to their own routes and headers', async () => {
    const session = await get(app, '/dashboard/api/session');
    expect(session.json()).toEqual({ user: null });
    const api = await get(app, '/api/v1/thing');
    const unknown = await get(app, '/dashboard/api/unknown?x=1');
    for (const res of [session, api, unknown]) {
      expect(res.headers['content-security-policy']).toContain("'unsafe-inline'");
    }
  });

  it('answers 503 in the envelope when the app was not built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'dashboard-web-empty-'));
    const bare = await appServing(empty);
    try {
      const res = await get(bare, '/dashboard/campaigns');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: 'service_unavailable',
        message: expect.stringContaining('npm run build'),
      });
      expect((await get(bare, '/dashboard/assets/index-abc123.js')).statusCode).toBe(404);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
