import type { ServerResponse } from 'node:http';
import { CampaignApiClient, CampaignApiError, CampaignApiNetworkError } from '../src';
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
});
