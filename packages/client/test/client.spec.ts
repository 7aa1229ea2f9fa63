import type { ServerResponse } from 'node:http';
import {
  CampaignApiClient,
  CampaignApiError,
  CampaignApiNetworkError,
  CampaignApiRedirectError,
  MAX_REDIRECTS,
} from '../src';
import { FakeServer, json, type Received } from './fake-server';

const TOKEN = '/api/v1/auth/api-key/token';
const UPLOAD = '/api/v1/leads/upload';
const EVENTS = '/api/v1/webhooks/7/events';
const KEY = 'capi_test-key';
const REPORT = {
  status: 'accepted',
  import_id: '0b9c2f4e-6a1d-4c8e-9f57-2d3a1b7c9e10',
  received_count: 1,
  valid_count: 1,
  invalid_count: 0,
  duplicate_count: 0,
  errors: [],
};
const BODY = {
  campaign_id: 7,
  compliance_acknowledged: true as const,
  leads: [{ phone: '+12123744203' }],
};

describe('CampaignApiClient against a fake server', () => {
  const server = new FakeServer();
  let baseUrl: string;
  let issued = 0;
  /** Answers the token exchange with token-N, valid for `ttl` seconds. */
  let ttl = 900;
  let route: (req: Received, res: ServerResponse) => void;

  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.received.length = 0;
    issued = 0;
    ttl = 900;
    route = (_req, res) => json(res, 202, REPORT);
    server.handler = (req, res) => {
      if (req.path === TOKEN) {
        json(res, 200, {
          access_token: `token-${++issued}`,
          token_type: 'bearer',
          expires_in: ttl,
        });
      } else route(req, res);
    };
  });

  const client = (extra: Partial<ConstructorParameters<typeof CampaignApiClient>[0]> = {}) =>
    new CampaignApiClient({
      baseUrl,
      apiKey: KEY,
      retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 50 },
      ...extra,
    });

  describe('tokens', () => {
    it('exchanges the key on first use, once for concurrent calls, and sends it only there', async () => {
      const api = client();
      await Promise.all([api.listEventTypes(7), api.listEventTypes(7), api.listEventTypes(7)]);
      expect(server.to(TOKEN)).toHaveLength(1);
      expect(JSON.parse(server.to(TOKEN)[0].body)).toEqual({ api_key: KEY });
      for (const req of server.to(EVENTS)) {
        expect(req.headers.authorization).toBe('Bearer token-1');
        expect(JSON.stringify(req.headers)).not.toContain(KEY);
      }
    });

    it('refreshes before expiry: reused until the margin, exchanged again inside it', async () => {
      let now = 1_000_000;
      const api = client({ now: () => now, refreshMarginMs: 60_000 });
      await api.listEventTypes(7);
      now += 839_000; // 900 s token, 60 s margin: still good at 839 s
      await api.listEventTypes(7);
      expect(server.to(TOKEN)).toHaveLength(1);
      now += 2_000; // 841 s: inside the margin
      await api.listEventTypes(7);
      expect(server.to(TOKEN)).toHaveLength(2);
      expect(server.to(EVENTS).map((r) => r.headers.authorization)).toEqual([
        'Bearer token-1',
        'Bearer token-1',
        'Bearer token-2',
      ]);
    });

    it('caps the margin at half a short lifetime, so a 60 s token is still reused', async () => {
      ttl = 60;
      let now = 0;
      const api = client({ now: () => now });
      await api.listEventTypes(7);
      now += 29_000;
      await api.listEventTypes(7);
      expect(server.to(TOKEN)).toHaveLength(1);
      now += 2_000;
      await api.listEventTypes(7);
      expect(server.to(TOKEN)).toHaveLength(2);
    });

    it('answers a 401 with one fresh exchange and retries; a 401 from the exchange is thrown', async () => {
      route = (req, res) =>
        req.headers.authorization === 'Bearer token-1'
          ? json(res, 401, { error: 'unauthorized', message: 'Token expired' })
          : json(res, 200, ['lead.created']);
      await expect(client().listEventTypes(7)).resolves.toEqual(['lead.created']);
      expect(server.to(TOKEN)).toHaveLength(2);

      server.handler = (_req, res) =>
        json(res, 401, { error: 'unauthorized', message: 'Invalid API key' });
      const error = await client()
        .listEventTypes(7)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CampaignApiError);
      expect(error).toMatchObject({ status: 401, error: 'unauthorized' });
    });
  });

  describe('typed errors', () => {
    it('carries the status, the envelope code and message, and the request id', async () => {
      route = (_req, res) =>
        json(res, 403, { error: 'forbidden', message: 'no' }, { 'x-request-id': 'req-1' });
      const error = (await client()
        .uploadLeads(BODY)
        .catch((e: unknown) => e)) as CampaignApiError;
      expect(error).toBeInstanceOf(CampaignApiError);
      expect(error).toMatchObject({
        name: 'CampaignApiError',
        status: 403,
        error: 'forbidden',
        message: 'no',
        requestId: 'req-1',
        attempts: 1,
        details: [],
      });
      expect(server.to(UPLOAD)).toHaveLength(1); // not retried
    });

    it('splits the problems of a 422 into details', async () => {
      route = (_req, res) =>
        json(res, 422, {
          error: 'validation_failed',
          message: 'leads[3] must be an object; tags must be an array of strings',
        });
      await expect(client().uploadLeads(BODY)).rejects.toMatchObject({
        status: 422,
        error: 'validation_failed',
        details: ['leads[3] must be an object', 'tags must be an array of strings'],
      });
    });

    it('names an answer that is not the envelope http_<status>, after the retries', async () => {
      route = (_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>Bad Gateway</html>');
      };
      await expect(client().listEventTypes(7)).rejects.toMatchObject({
        status: 502,
        error: 'http_502',
        attempts: 4,
      });
    });
  });

  describe('retries', () => {
    it('resends an upload whose connection dropped with the same Idempotency-Key', async () => {
      let uploads = 0;
      route = (_req, res) => {
        if (++uploads <= 2) res.socket!.destroy();
        else json(res, 202, REPORT, { 'idempotent-replayed': 'true' });
      };
      const result = await client().uploadLeads(BODY, { idempotencyKey: 'batch-1' });
      expect(result).toEqual({ report: REPORT, idempotencyKey: 'batch-1', replayed: true });
      const sent = server.to(UPLOAD);
      expect(sent).toHaveLength(3);
      expect(sent.map((r) => r.headers['idempotency-key'])).toEqual([
        'batch-1',
        'batch-1',
        'batch-1',
      ]);
      expect(new Set(sent.map((r) => r.body)).size).toBe(1);
    });

    it('generates one key per call when none is given, kept across its retries', async () => {
      let uploads = 0;
      route = (_req, res) => (++uploads % 2 === 1 ? res.socket!.destroy() : json(res, 202, REPORT));
      const api = client();
      const first = await api.uploadLeads(BODY);
      const second = await api.uploadLeads(BODY);
      const keys = server.to(UPLOAD).map((r) => r.headers['idempotency-key']);
      expect(keys).toEqual([
        first.idempotencyKey,
        first.idempotencyKey,
        second.idempotencyKey,
        second.idempotencyKey,
      ]);
      expect(first.idempotencyKey).not.toBe(second.idempotencyKey);
    });

    it('retries an attempt that runs past timeoutMs', async () => {
      let uploads = 0;
      route = (_req, res) => {
        if (++uploads === 1) return; // never answers
        json(res, 202, REPORT);
      };
      const result = await client({ timeoutMs: 200 }).uploadLeads(BODY, { idempotencyKey: 'k' });
      expect(result.report).toEqual(REPORT);
      expect(server.to(UPLOAD).map((r) => r.headers['idempotency-key'])).toEqual(['k', 'k']);
    });

    it('waits Retry-After on 429 and 503, and retries 409 idempotency_conflict', async () => {
      const answers: [number, string, Record<string, string>][] = [
        [429, 'rate_limited', { 'retry-after': '0' }],
        [503, 'service_unavailable', { 'retry-after': '0' }],
        [409, 'idempotency_conflict', {}],
      ];
      route = (_req, res) => {
        const next = answers.shift();
        if (next) json(res, next[0], { error: next[1], message: 'later' }, next[2]);
        else json(res, 202, REPORT);
      };
      const retries: unknown[] = [];
      const api = client({ onRetry: (event) => retries.push(event) });
      await expect(api.uploadLeads(BODY, { idempotencyKey: 'k' })).resolves.toMatchObject({
        report: REPORT,
      });
      expect(retries).toEqual([
        {
          method: 'POST',
          path: UPLOAD,
          attempt: 1,
          status: 429,
          reason: 'rate_limited',
          delayMs: 0,
        },
        {
          method: 'POST',
          path: UPLOAD,
          attempt: 2,
          status: 503,
          reason: 'service_unavailable',
          delayMs: 0,
        },
        {
          method: 'POST',
          path: UPLOAD,
          attempt: 3,
          status: 409,
          reason: 'idempotency_conflict',
          delayMs: expect.any(Number),
        },
      ]);
    });

    it('throws CampaignApiNetworkError when nothing answers after every retry', async () => {
      const closed = new FakeServer();
      const closedUrl = await closed.start();
      await closed.stop(); // nothing listens there any more
      const api = new CampaignApiClient({
        baseUrl: closedUrl,
        apiKey: KEY,
        retry: { retries: 2, baseDelayMs: 1 },
      });
      const error = (await api
        .uploadLeads(BODY)
        .catch((e: unknown) => e)) as CampaignApiNetworkError;
      expect(error).toBeInstanceOf(CampaignApiNetworkError);
      expect(error.attempts).toBe(3);
      expect(error.message).toMatch(
        /auth\/api-key\/token: no answer after 3 attempts \(ECONNREFUSED\)/,
      );
    });

    it('stops at once when the caller aborts', async () => {
      route = () => undefined; // never answers
      const controller = new AbortController();
      const pending = client().uploadLeads(BODY, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('stop')), 100);
      await expect(pending).rejects.toThrow('stop');
      expect(server.to(UPLOAD)).toHaveLength(1);
    });
  });

  describe('redirects (docs/client.md#redirects)', () => {
    /** Another origin: same host, another port. It must never hear from the client. */
    const other = new FakeServer();
    let otherUrl: string;
    beforeAll(async () => {
      otherUrl = await other.start();
      other.handler = (req, res) =>
        req.path === TOKEN
          ? json(res, 200, { access_token: 'stolen', token_type: 'bearer', expires_in: 900 })
          : json(res, 202, REPORT);
    });
    afterAll(() => other.stop());
    beforeEach(() => {
      other.received.length = 0;
    });
    const redirect = (res: ServerResponse, status: number, location: string) => {
      res.writeHead(status, { location, 'content-type': 'text/plain' });
      res.end(`moved to ${location}`);
    };

    it('refuses a 307 of the token exchange to another origin: nothing, and no key, reaches it', async () => {
      server.handler = (req, res) => redirect(res, 307, `${otherUrl}${req.path}`);
      const error = (await client()
        .uploadLeads(BODY)
        .catch((e: unknown) => e)) as CampaignApiRedirectError;

      expect(error).toBeInstanceOf(CampaignApiRedirectError);
      expect(error).toMatchObject({
        name: 'CampaignApiRedirectError',
        status: 307,
        location: `${otherUrl}${TOKEN}`,
        suggestedBaseUrl: otherUrl,
      });
      expect(error.message).toBe(
        `POST ${TOKEN}: the service at ${baseUrl} redirected (307) to ${otherUrl}${TOKEN}, ` +
          'another origin; not followed, so that the API key and tokens are not sent there. ' +
          `If the service has moved there, use ${otherUrl} as the service URL`,
      );
      expect(other.received).toEqual([]);
      // One exchange, not retried, and the upload never sent.
      expect(server.received.map((r) => [r.method, r.path])).toEqual([['POST', TOKEN]]);
      expect(JSON.parse(server.received[0].body)).toEqual({ api_key: KEY });
    });

    it.each([301, 302, 303, 307, 308])(
      'refuses a %i of an authenticated call to another origin: the bearer token stays home',
      async (status) => {
        route = (req, res) => redirect(res, status, `${otherUrl}${req.path}`);
        await expect(client().listEventTypes(7)).rejects.toMatchObject({
          name: 'CampaignApiRedirectError',
          status,
          location: `${otherUrl}${EVENTS}`,
          suggestedBaseUrl: otherUrl,
        });
        expect(other.received).toEqual([]);
        expect(server.to(EVENTS)).toHaveLength(1);
        expect(server.to(EVENTS)[0].headers.authorization).toBe('Bearer token-1');
      },
    );

    it('suggests the target’s path prefix as the service URL when it keeps the API path', async () => {
      server.handler = (req, res) => redirect(res, 308, `${otherUrl}/campaigns${req.path}`);
      await expect(client().listEventTypes(7)).rejects.toMatchObject({
        location: `${otherUrl}/campaigns${TOKEN}`,
        suggestedBaseUrl: `${otherUrl}/campaigns`,
      });
      expect(other.received).toEqual([]);
    });

    it.each([
      ['a downgrade to http', 'http://api.example.test/api/v1/auth/api-key/token'],
      ['another port', 'https://api.example.test:8443/api/v1/auth/api-key/token'],
      ['another host', 'https://api2.example.test/api/v1/auth/api-key/token'],
    ])('treats %s as another origin', async (_case, location) => {
      const sent: Request[] = [];
      const api = new CampaignApiClient({
        baseUrl: 'https://api.example.test',
        apiKey: KEY,
        fetch: (request) => {
          sent.push(request);
          return Promise.resolve(new Response(null, { status: 301, headers: { location } }));
        },
      });
      await expect(api.token()).rejects.toMatchObject({
        name: 'CampaignApiRedirectError',
        location,
        suggestedBaseUrl: new URL(location).origin,
      });
      expect(sent.map((r) => [r.method, r.url, r.redirect])).toEqual([
        ['POST', `https://api.example.test${TOKEN}`, 'manual'],
      ]);
    });

    it('follows redirects within the service’s origin: 307/308 keep method, body and headers', async () => {
      server.handler = (req, res) => {
        if (req.path === TOKEN) return redirect(res, 307, '/v2/token');
        if (req.path === '/v2/token') {
          return json(res, 200, { access_token: 'token-1', token_type: 'bearer', expires_in: 900 });
        }
        if (req.path === UPLOAD) return redirect(res, 308, `${baseUrl}/v2/upload`);
        json(res, 202, REPORT);
      };
      const result = await client().uploadLeads(BODY, { idempotencyKey: 'moved-1' });

      expect(result).toEqual({ report: REPORT, idempotencyKey: 'moved-1', replayed: false });
      expect(server.received.map((r) => [r.method, r.path])).toEqual([
        ['POST', TOKEN],
        ['POST', '/v2/token'],
        ['POST', UPLOAD],
        ['POST', '/v2/upload'],
      ]);
      expect(JSON.parse(server.to('/v2/token')[0].body)).toEqual({ api_key: KEY });
      const [moved] = server.to('/v2/upload');
      expect(JSON.parse(moved.body)).toEqual(BODY);
      expect(moved.headers).toMatchObject({
        authorization: 'Bearer token-1',
        'idempotency-key': 'moved-1',
        'content-type': expect.stringContaining('application/json'),
      });
      expect(other.received).toEqual([]);
    });

    it('turns a POST into a GET without body on a same-origin 303, as fetch does', async () => {
      route = (req, res) =>
        req.path === UPLOAD ? redirect(res, 303, '/imports/latest') : json(res, 202, REPORT);
      await client().uploadLeads(BODY, { idempotencyKey: 'k' });
      const [followed] = server.to('/imports/latest');
      expect(followed).toMatchObject({ method: 'GET', body: '' });
      expect(followed.headers['content-type']).toBeUndefined();
      expect(followed.headers.authorization).toBe('Bearer token-1');
    });

    it(`gives up after ${MAX_REDIRECTS} redirects in a row within the origin`, async () => {
      let hops = 0;
      route = (_req, res) => redirect(res, 302, `/loop/${++hops}`);
      await expect(client().listEventTypes(7)).rejects.toMatchObject({
        name: 'CampaignApiRedirectError',
        message: `GET ${EVENTS}: more than ${MAX_REDIRECTS} redirects in a row (the last to ${baseUrl}/loop/${MAX_REDIRECTS + 1}); not followed`,
        suggestedBaseUrl: undefined,
      });
      // The call and its five hops; not retried.
      expect(server.received.filter((r) => r.path !== TOKEN)).toHaveLength(MAX_REDIRECTS + 1);
    });
  });
});
