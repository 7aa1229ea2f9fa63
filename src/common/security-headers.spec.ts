import Fastify from 'fastify';
import { API_SECURITY_HEADERS, isNoStoreRequest, TOKEN_EXCHANGE_ROUTE } from '../app.factory';
import { installNoStore, installSecurityHeaders, securityHeaders } from './security-headers';

describe('securityHeaders', () => {
  it("gives helmet's headers for the API's options, once", () => {
    const headers = securityHeaders(API_SECURITY_HEADERS);
    expect(headers).toMatchObject({
      'content-security-policy':
        "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';" +
        "frame-ancestors 'self';img-src 'self' data:;object-src 'none';" +
        "script-src 'self' 'unsafe-inline';script-src-attr 'none';" +
        "style-src 'self' 'unsafe-inline';upgrade-insecure-requests",
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'SAMEORIGIN',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    });
    expect(headers).not.toHaveProperty('x-powered-by');
  });

  it('refuses options helmet refuses', () => {
    expect(() =>
      securityHeaders({ contentSecurityPolicy: { directives: { 'default-src': 'self' } } }),
    ).toThrow();
  });

  it('sends them on every response, errors included; a later hook may replace one', async () => {
    const app = Fastify();
    installSecurityHeaders(app, API_SECURITY_HEADERS);
    app.addHook('onRequest', async (request, reply) => {
      if (request.url === '/own-policy')
        void reply.header('content-security-policy', "default-src 'none'");
    });
    app.get('/ok', async () => ({ ok: true }));
    app.get('/own-policy', async () => ({ ok: true }));
    app.get('/fails', async () => {
      throw new Error('boom');
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      for (const path of ['/ok', '/fails', '/missing']) {
        const res = await fetch(base + path);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      }
      const own = await fetch(`${base}/own-policy`);
      expect(own.headers.get('content-security-policy')).toBe("default-src 'none'");
      expect(own.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    } finally {
      await app.close();
    }
  });
});

describe('installNoStore (docs/security.md#responses-never-stored)', () => {
  it('marks every response the predicate picks no-store, errors and unknown URLs included, keeping a route’s own', async () => {
    const app = Fastify();
    installNoStore(app, isNoStoreRequest);
    app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/dashboard/api/hook-refuses')) throw new Error('refused');
    });
    app.get('/dashboard/api/session', async () => ({ csrf_token: 't' }));
    app.get('/dashboard/api/hook-refuses', async () => ({}));
    app.get('/dashboard/api/fails', async () => {
      throw new Error('boom');
    });
    app.get('/dashboard/api/own', async (_request, reply) =>
      reply.header('cache-control', 'private, max-age=5').send({}),
    );
    app.post(TOKEN_EXCHANGE_ROUTE, async () => ({ access_token: 'jwt' }));
    app.get('/dashboard/*', async () => 'the browser app');
    app.get('/api/v1/webhooks/1/events', async () => []);
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const cacheControl = async (path: string, method = 'GET') =>
      (await fetch(base + path, { method })).headers.get('cache-control');
    try {
      for (const path of [
        '/dashboard/api/session',
        '/dashboard/api/session?x=1',
        '/dashboard/api/hook-refuses',
        '/dashboard/api/fails',
        '/dashboard/api/missing',
        '/dashboard/api',
        '/dashboard/%61pi/session',
      ]) {
        expect({ path, cacheControl: await cacheControl(path) }).toEqual({
          path,
          cacheControl: 'no-store',
        });
      }
      expect(await cacheControl(TOKEN_EXCHANGE_ROUTE, 'POST')).toBe('no-store');
      expect(await cacheControl(TOKEN_EXCHANGE_ROUTE)).toBeNull(); // 404: no such route
      expect(await cacheControl('/dashboard/api/own')).toBe('private, max-age=5');
      expect(await cacheControl('/dashboard/campaigns')).toBeNull();
      expect(await cacheControl('/dashboard/apix')).toBeNull();
      expect(await cacheControl('/api/v1/webhooks/1/events')).toBeNull();
    } finally {
      await app.close();
    }
  });
});
