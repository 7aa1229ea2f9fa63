/**
 * Requests an attacker would send (docs/security.md): bodies with very many unknown fields,
 * requests that never finish arriving, secrets in query strings and request ids, lone
 * surrogates, unnormalised URLs, impossible token lifetimes and missing Host headers. SSRF
 * spellings and `TRUST_PROXY` are covered by unit specs (src/delivery/worker/address-policy.spec.ts,
 * src/config/app-config.spec.ts).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startTestApp, type TestApp, type Caller, uploadBody } from './support/test-app';
import { ServiceProcess, PROCESS_START_TIMEOUT_MS } from './support/processes';
import { WebhookReceiver } from './support/webhook-receiver';
import { parseResponse, rawExchange } from './support/raw-http';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';

const UPLOAD = '/api/v1/leads/upload';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const JWT_SECRET = process.env.JWT_SECRET!;

async function listeningPort(t: TestApp): Promise<number> {
  await t.app.listen(0, '127.0.0.1');
  return (t.app.getHttpServer().address() as AddressInfo).port;
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** An HS256 token signed with the test JWT_SECRET, with `claims` as given. */
function signToken(claims: Record<string, unknown>): string {
  const unsigned = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}`;
  return `${unsigned}.${createHmac('sha256', JWT_SECRET).update(unsigned).digest('base64url')}`;
}

/**
 * Each block starts its own app and closes it before the next starts: passport keeps one
 * `jwt` strategy per process, the last app's, so apps of one file must not overlap.
 */
function withApp(overrides: Record<string, string> = {}): {
  t: () => TestApp;
  upload: (caller: Caller, body: object) => request.Test;
} {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(overrides);
  });
  afterAll(() => app.close());
  return {
    t: () => app,
    upload: (caller, body) =>
      app.http().post(UPLOAD).set('Authorization', `Bearer ${caller.token}`).send(body),
  };
}

describe('Hostile requests: huge bodies, slow clients, secrets in URLs, odd encodings', () => {
  describe('a body with very many unknown top-level fields', () => {
    const { t: app, upload } = withApp();
    let t: TestApp;
    let me: Caller;
    beforeAll(async () => {
      t = app();
      me = await t.given.caller();
    });

    /** An upload body with `count` unknown keys `f0`…, built as text (fast to serialise). */
    const bodyWithUnknownKeys = (count: number, envelope: Record<string, unknown>): string => {
      const known = JSON.stringify(envelope).slice(1, -1);
      const unknown = Array.from({ length: count }, (_, i) => `"f${i}":0`).join(',');
      return `{${known}${known ? ',' : ''}${unknown}}`;
    };
    const send = (body: string) =>
      t
        .http()
        .post(UPLOAD)
        .set('Authorization', `Bearer ${me.token}`)
        .set('Content-Type', 'application/json')
        .send(body);

    it('answers 422 naming ten of 200,000 unknown fields and counting the rest, in under 2 KB', async () => {
      const res = await send(
        bodyWithUnknownKeys(200_000, uploadBody(me.campaignId, [{ phone: '+14155550100' }])),
      ).expect(422);
      expect(Object.keys(res.body)).toEqual(['error', 'message']);
      expect(res.body.error).toBe('validation_failed');
      const message = res.body.message as string;
      expect(Buffer.byteLength(message)).toBeLessThan(2048);
      for (let i = 0; i < 10; i++) expect(message).toContain(`f${i} is not a known field`);
      expect(message).not.toContain('f10 is not a known field');
      expect(message).toContain('and 199,990 more unknown fields');
      const [{ count }] = await t.db.query(
        'SELECT count(*)::int AS count FROM lead_import WHERE campaign_id = $1',
        [me.campaignId],
      );
      expect(count).toBe(0);
    });

    it('still checks compliance, then leads, before unknown fields', async () => {
      const noCompliance = await send(
        bodyWithUnknownKeys(1000, {
          campaign_id: me.campaignId,
          compliance_acknowledged: false,
          leads: [{ phone: '+14155550100' }],
        }),
      ).expect(400);
      expect(noCompliance.body.error).toBe('compliance_not_acknowledged');
      const noLeads = await send(
        bodyWithUnknownKeys(1000, { campaign_id: me.campaignId, compliance_acknowledged: true }),
      ).expect(400);
      expect(noLeads.body).toEqual({ error: 'bad_request', message: 'leads is required' });
    });

    it('cuts an unknown field name over 64 characters', async () => {
      const long = 'x'.repeat(10_000);
      const res = await upload(me, {
        ...uploadBody(me.campaignId, [{ phone: '+14155550100' }]),
        [long]: 1,
      }).expect(422);
      expect(res.body.message).toBe(`${'x'.repeat(64)}… is not a known field`);
    });
  });

  describe('a request that never finishes arriving', () => {
    const { t: timed } = withApp({ HTTP_REQUEST_TIMEOUT_MS: '1000' });
    let port: number;
    beforeAll(async () => {
      port = await listeningPort(timed());
    });

    it('answers 408 request_timeout and closes a socket whose body stops short', async () => {
      const { text, closed } = await rawExchange(port, [
        // The token exchange needs no bearer token, so nothing answers before the body is read.
        `POST /api/v1/auth/api-key/token HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          'Content-Type: application/json\r\n' +
          'Content-Length: 100\r\n\r\n{',
      ]);
      expect(closed).toBe(true);
      const res = parseResponse(text);
      expect(res.status).toBe(408);
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(res.body)).toEqual({
        error: 'request_timeout',
        message: expect.any(String),
      });
    });

    it('answers 408 and closes a socket whose headers never end', async () => {
      const { text, closed } = await rawExchange(port, [
        'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ',
      ]);
      expect(closed).toBe(true);
      const res = parseResponse(text);
      expect(res.status).toBe(408);
      expect(JSON.parse(res.body)).toEqual({
        error: 'request_timeout',
        message: expect.any(String),
      });
    });

    it('still serves a request that arrives in time', async () => {
      const { text } = await rawExchange(port, [
        'GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      ]);
      expect(parseResponse(text).status).toBe(200);
    });
  });

  describe('secrets in query strings and request ids stay out of logs', () => {
    const apiKey = `capi_${'Q'.repeat(43)}`;
    const jwt = signToken({ sub: '1', acc: 1, iat: 1, exp: 2 });
    let api: ServiceProcess;
    let base: string;
    beforeAll(async () => {
      api = new ServiceProcess('main.js', {
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-logs`,
        LOG_LEVEL: 'info',
        RUN_WORKER: 'false',
        PORT: '0',
        HOST: '127.0.0.1',
      });
      base = (await api.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1];
    }, PROCESS_START_TIMEOUT_MS);
    afterAll(() => api?.stop());

    it('logs the URL with query values redacted and never adopts a secret-shaped request id', async () => {
      const res = await request(base)
        .get(`/api/v1/webhooks/1/events?api_key=${apiKey}&access_token=${jwt}`)
        .set('X-Request-Id', apiKey)
        .expect(401);
      const requestId = res.headers['x-request-id'] as string;
      expect(requestId).not.toBe(apiKey);
      expect(requestId).toMatch(UUID);

      await api.waitForOutput(new RegExp(`"request_id":"${requestId}"`));
      const lines = api.output.split('\n').filter((line) => line.includes(requestId));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).toContain(
        '/api/v1/webhooks/1/events?api_key=[redacted]&access_token=[redacted]',
      );
      for (const line of api.output.split('\n')) {
        expect(line).not.toContain(apiKey);
        expect(line).not.toContain(jwt);
        expect(line).not.toContain(jwt.split('.')[2]);
      }
    });

    it('still adopts a plain X-Request-Id', async () => {
      const id = `trace-${randomUUID().slice(0, 8)}`;
      const res = await request(base).get('/health/live').set('X-Request-Id', id).expect(200);
      expect(res.headers['x-request-id']).toBe(id);
    });
  });

  describe('what is stored is what is delivered, listed and trusted', () => {
    const { t: app, upload } = withApp();
    let t: TestApp;
    beforeAll(() => {
      t = app();
    });
    const receivers: WebhookReceiver[] = [];
    afterAll(() => Promise.all(receivers.map((r) => r.stop())));

    it('stores and delivers a lone surrogate as the same U+FFFD', async () => {
      const me = await t.given.caller();
      const receiver = await new WebhookReceiver().start();
      receivers.push(receiver);
      await t.given.endpoint(me.campaignId, receiver.url, ['lead.created']);
      await upload(
        me,
        uploadBody(me.campaignId, [{ phone: '+14155550123', first_name: 'A\ud800B' }], {
          source: 'crm\udc00',
          tags: ['t\ud800'],
        }),
      ).expect(202);

      const [webhook] = await receiver.waitFor(1);
      const delivered = JSON.parse(webhook.body) as {
        data: { first_name: string; source: string; tags: string[] };
      };
      const [row] = await t.db.query(
        'SELECT first_name, source, tags FROM lead WHERE campaign_id = $1',
        [me.campaignId],
      );
      expect(row.first_name).toBe('A\uFFFDB');
      expect(delivered.data.first_name).toBe(row.first_name);
      expect(row.source).toBe('crm\uFFFD');
      expect(delivered.data.source).toBe(row.source);
      expect(row.tags).toEqual(['t\uFFFD']);
      expect(delivered.data.tags).toEqual(row.tags);
    });

    it('stores and lists endpoint URLs normalised', async () => {
      const me = await t.given.caller();
      const { id } = await t.given.endpoint(me.campaignId, 'HTTP://Example.COM:80/Hooks', [
        'lead.created',
      ]);
      const [row] = await t.db.query('SELECT url FROM webhook_endpoint WHERE id = $1', [id]);
      expect(row.url).toBe('http://example.com/Hooks');
      const listed = await t
        .http()
        .get(`/api/v1/webhooks/${me.campaignId}/endpoints`)
        .set('Authorization', `Bearer ${me.token}`)
        .expect(200);
      expect(listed.body.map((e: { url: string }) => e.url)).toEqual(['http://example.com/Hooks']);

      const updated = await t.app
        .get(WebhookEndpointAdmin)
        .update(id, { url: 'HTTPS://Bücher.Example:443/A/B?x=1' });
      expect(updated.url).toBe('https://xn--bcher-kva.example/A/B?x=1');
      const [after] = await t.db.query('SELECT url FROM webhook_endpoint WHERE id = $1', [id]);
      expect(after.url).toBe('https://xn--bcher-kva.example/A/B?x=1');
    });

    describe('bearer tokens with an impossible lifetime', () => {
      let me: Caller;
      beforeAll(async () => {
        me = await t.given.caller();
      });
      const claims = (iat: number, exp: number) => ({
        sub: String(me.apiKeyId),
        acc: me.accountId,
        iat,
        exp,
        jti: randomUUID(),
        iss: 'campaign-api',
        aud: 'campaign-api',
      });
      const probe = (token: string) =>
        t
          .http()
          .post(UPLOAD)
          .set('Authorization', `Bearer ${token}`)
          .send(uploadBody(me.campaignId, [{ phone: '+14155550124' }]));
      const now = () => Math.floor(Date.now() / 1000);

      it('accepts a token shaped like the ones it issues (control)', async () => {
        await probe(signToken(claims(now(), now() + 900))).expect(202);
      });

      it.each([
        ['expires ten years ahead', () => claims(now(), now() + 10 * 365 * 86_400)],
        ['was issued an hour in the future', () => claims(now() + 3600, now() + 4500)],
        ['has no iat', () => ({ ...claims(now(), now() + 900), iat: undefined })],
        ['has a string iat', () => ({ ...claims(now(), now() + 900), iat: String(now()) })],
      ])('answers 401 for a token that %s', async (_name, make) => {
        const res = await probe(signToken(make())).expect(401);
        expect(res.body).toEqual({ error: 'unauthorized', message: 'The bearer token is invalid' });
        expect(res.headers['www-authenticate']).toBe('Bearer');
      });
    });

    describe('a request without a Host header', () => {
      let port: number;
      beforeAll(async () => {
        port = await listeningPort(t);
      });

      it('answers HTTP/1.1 without Host with 400 bad_request in the envelope', async () => {
        const { text } = await rawExchange(port, ['GET /health/live HTTP/1.1\r\n\r\n'], {
          untilResponse: true,
        });
        const res = parseResponse(text);
        expect(res.status).toBe(400);
        expect(res.headers['x-request-id']).toMatch(UUID);
        expect(JSON.parse(res.body)).toEqual({
          error: 'bad_request',
          message: 'The Host header is required',
        });
      });

      it('lets HTTP/1.0 omit Host', async () => {
        const { text } = await rawExchange(port, ['GET /health/live HTTP/1.0\r\n\r\n'], {
          untilResponse: true,
        });
        expect(parseResponse(text).status).toBe(200);
      });
    });
  });
});
