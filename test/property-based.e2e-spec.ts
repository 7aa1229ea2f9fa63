import fc from 'fast-check';
import type { Response } from 'supertest';
import { startTestApp, type TestApp, type Caller } from './support/test-app';
import { ERROR_CODES as CONTRACT_ERROR_CODES } from '../src/common/api-error';

/**
 * Hostile input (issue: production surface, item 6). fast-check throws generated and mutated
 * bodies, headers and path ids at every route and checks, for every response: never a 5xx;
 * every error is exactly `{error, message}` with a contract code; a rejected request writes
 * nothing; an accepted upload is consistent (`received = valid + invalid`, one error per
 * invalid lead, sorted rows, and as many stored leads as it says it created).
 */
/** Every code but internal_error, which only a fault produces. */
const ERROR_CODES = new Set<string>(
  CONTRACT_ERROR_CODES.filter((code) => code !== 'internal_error'),
);
const LEAD_FIELDS = ['phone', 'email', 'first_name', 'last_name', 'company', 'title'];

/** Strings people and attackers send: unicode, NULs, long runs, numbers as text. */
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '😀'.repeat(200),
    'x'.repeat(300),
    '+1 (415) 555-2671',
    '1e309',
    '__proto__',
  ),
);
const anyJson = fc.jsonValue({ maxDepth: 2 });
const phone = fc.oneof(
  fc.constantFrom('+14155552671', '(415) 555-2671', '415.555.2671', '+44 20 7946 0958', '12345'),
  fc.integer({ min: 0, max: 9_999_999 }).map((n) => `+1212${String(2_000_000 + n).slice(0, 7)}`),
  nasty,
  anyJson,
);
const lead = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        phone,
        email: fc.oneof(fc.emailAddress(), nasty, anyJson),
        first_name: fc.oneof(nasty, anyJson),
        last_name: nasty,
        company: nasty,
        title: fc.oneof(nasty, anyJson),
        extra: anyJson,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: anyJson },
);

describe('Hostile input at every route (property-based)', () => {
  let t: TestApp;
  let me: Caller;
  let stranger: Caller;
  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    me = await t.given.caller();
    stranger = await t.given.caller();
    await t.given.endpoint(me.campaignId, 'https://example.com/hook', [
      'lead.created',
      'leads.bulk_created',
    ]);
  });
  afterAll(() => t.close());

  const written = async () =>
    (
      await t.db.query(
        `SELECT (SELECT count(*) FROM lead WHERE campaign_id = $1)::int AS leads,
                (SELECT count(*) FROM lead_import WHERE campaign_id = $1)::int AS imports,
                (SELECT count(*) FROM webhook_event WHERE campaign_id = $1)::int AS events`,
        [me.campaignId],
      )
    )[0] as { leads: number; imports: number; events: number };

  /** How often each status was seen, to show the properties were not vacuous. */
  const seen = new Map<number, number>();

  /** The invariants every response must keep. */
  async function checkResponse(
    res: Response,
    before: Awaited<ReturnType<typeof written>>,
  ): Promise<void> {
    seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
    expect(res.status).toBeLessThan(500);
    if (res.status >= 400) {
      expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
      expect(ERROR_CODES.has(res.body.error)).toBe(true);
      expect(typeof res.body.message).toBe('string');
      expect(await written()).toEqual(before);
      return;
    }
    if (res.status === 202) {
      const body = res.body as {
        received_count: number;
        valid_count: number;
        invalid_count: number;
        duplicate_count: number;
        import_id: string;
        errors: Array<{ row: number; var_field: string; message: string }>;
      };
      expect(body.received_count).toBe(body.valid_count + body.invalid_count);
      expect(body.errors).toHaveLength(body.invalid_count);
      expect(body.duplicate_count).toBeLessThanOrEqual(body.valid_count);
      body.errors.forEach((error, i) => {
        expect(LEAD_FIELDS).toContain(error.var_field);
        expect(error.row).toBeGreaterThanOrEqual(0);
        expect(error.row).toBeLessThan(body.received_count);
        if (i > 0) expect(error.row).toBeGreaterThan(body.errors[i - 1].row);
      });
      const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM lead WHERE import_id = $1', [
        body.import_id,
      ]);
      expect(n).toBe(body.valid_count - body.duplicate_count);
    }
  }

  const authorization = () =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(`Bearer ${me.token}`) },
      fc.constant(`Bearer ${stranger.token}`),
      fc.constant(undefined),
      nasty.map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}`),
      fc.constant(`Bearer ${me.token.slice(0, -3)}abc`),
    );

  it('POST /leads/upload: mutated upload bodies', async () => {
    const body = fc
      .record(
        {
          campaign_id: fc.oneof(
            { weight: 6, arbitrary: fc.constant(me.campaignId) },
            fc.constant(stranger.campaignId),
            fc.integer(),
            fc.double(),
            fc.constant(2 ** 31),
            anyJson,
          ),
          compliance_acknowledged: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, anyJson),
          leads: fc.oneof({ weight: 6, arbitrary: fc.array(lead, { maxLength: 12 }) }, anyJson),
          // Mostly well-formed, so enough bodies get through to the per-lead checks.
          source: fc.oneof({ weight: 6, arbitrary: fc.constant('crm') }, nasty, anyJson),
          tags: fc.oneof(
            { weight: 6, arbitrary: fc.constant(['vip']) },
            fc.array(nasty, { maxLength: 4 }),
            anyJson,
          ),
          skip_duplicates: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, anyJson),
          disclaimer_version: fc.oneof({ weight: 6, arbitrary: fc.constant('v2') }, nasty, anyJson),
          unknown_field: anyJson,
        },
        { requiredKeys: ['campaign_id', 'compliance_acknowledged', 'leads'] },
      )
      .map((payload) => {
        // An unknown top-level field is a 422 by contract: include it only sometimes.
        const { unknown_field: unknown, ...rest } = payload as Record<string, unknown>;
        return JSON.stringify(unknown ?? null).length % 4 === 0 ? payload : rest;
      });
    // Sometimes a required field is missing altogether.
    const drop = fc.oneof(
      { weight: 8, arbitrary: fc.constant<string[]>([]) },
      fc.subarray(['campaign_id', 'compliance_acknowledged', 'leads'], {
        minLength: 1,
        maxLength: 1,
      }),
    );
    await fc.assert(
      fc.asyncProperty(body, drop, authorization(), async (generated, dropped, auth) => {
        const payload = { ...(generated as Record<string, unknown>) };
        for (const key of dropped) delete payload[key];
        const before = await written();
        const req = t.http().post('/api/v1/leads/upload');
        if (auth) req.set('Authorization', auth);
        await checkResponse(await req.send(payload), before);
      }),
      { numRuns: 700 },
    );
    // The mix reached both accepted uploads and each early rejection.
    for (const status of [202, 400, 401, 403, 422])
      expect(seen.get(status) ?? 0).toBeGreaterThan(0);
  });

  it('every POST: raw bytes, content types and broken JSON', async () => {
    const raw = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      anyJson.map((v) => JSON.stringify(v)),
      anyJson.map((v) => JSON.stringify(v).slice(0, -1)),
      fc.constantFrom(
        '{"__proto__": {"polluted": true}, "api_key": "x"}',
        '{"constructor": {"prototype": {"x": 1}}}',
        'null',
        '[]',
        '',
      ),
    );
    const contentType = fc.oneof(
      { weight: 4, arbitrary: fc.constant('application/json') },
      fc.constantFrom(
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/JSON',
        'multipart/form-data; boundary=x',
      ),
      fc.constant(undefined),
    );
    const path = fc.constantFrom('/api/v1/leads/upload', '/api/v1/auth/api-key/token');
    await fc.assert(
      fc.asyncProperty(path, raw, contentType, authorization(), async (url, bytes, type, auth) => {
        const before = await written();
        const req = t.http().post(url);
        if (type) req.set('Content-Type', type);
        if (auth) req.set('Authorization', auth);
        await checkResponse(await req.send(bytes), before);
      }),
      { numRuns: 500 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('POST /auth/api-key/token: generated bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { api_key: fc.oneof(nasty, anyJson, fc.constant(me.apiKey)), other: anyJson },
          { requiredKeys: [] },
        ),
        async (payload) => {
          const before = await written();
          const res = await t.http().post('/api/v1/auth/api-key/token').send(payload);
          await checkResponse(res, before);
          if (res.status === 200) expect(payload.api_key).toBe(me.apiKey);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('GET webhook reads and unknown routes: generated path ids and headers', async () => {
    const segment = fc.oneof(
      { weight: 3, arbitrary: fc.constant(String(me.campaignId)) },
      fc.integer().map(String),
      fc.constantFrom(
        '0',
        '-1',
        '01',
        '1.5',
        '1e3',
        '9'.repeat(30),
        '%F0%9F%98%80',
        '%00',
        '..',
        'null',
      ),
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).map(encodeURIComponent),
    );
    const route = fc.oneof(
      fc.tuple(segment).map(([c]) => `/api/v1/webhooks/${c}/events`),
      fc.tuple(segment).map(([c]) => `/api/v1/webhooks/${c}/endpoints`),
      fc.tuple(segment, segment).map(([c, e]) => `/api/v1/webhooks/${c}/endpoints/${e}/health`),
      fc.tuple(segment).map(([x]) => `/api/v1/${x}`),
    );
    await fc.assert(
      fc.asyncProperty(route, authorization(), async (url, auth) => {
        const before = await written();
        const req = t.http().get(url);
        if (auth) req.set('Authorization', auth);
        await checkResponse(await req, before);
      }),
      { numRuns: 500 },
    );
  });
});
