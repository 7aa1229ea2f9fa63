/**
 * Hostile input, property-based (docs/api.md): fast-check throws thousands of generated and
 * mutated bodies, headers and path ids at every route (token exchange, upload, webhook reads,
 * health, unknown routes) and checks, whatever arrives:
 *
 * - never a 5xx;
 * - every non-2xx body is exactly `{error, message}`, `error` a contract code that fits the
 *   status (401 also sets `WWW-Authenticate: Bearer`);
 * - a rejected request writes no `lead`, `lead_import` or `webhook_event` row;
 * - a 202 upload is consistent (counts, `errors` sorted by row, in range, known field,
 *   `duplicate_count <= valid_count`), its import record says the same, and it stored exactly
 *   `valid_count - duplicate_count` leads and the events the campaign's endpoints subscribe to.
 *
 * The campaigns are the test's own (A and B of one account, C of another), so parallel test
 * files cannot change the row counts. Replay a failure with FC_SEED=<seed> (and FC_PATH=<path>)
 * from fast-check's report; FC_RUNS_SCALE=5 runs five times as many cases (a soak, ~2 min).
 */
import fc from 'fast-check';
import type request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app';
import {
  authSpec,
  contentType,
  forgeJwt,
  hostileValue,
  idempotencyKey,
  mangleJwt,
  pathId,
  prototypeKey,
  rawBody,
  requestBytes,
  uploadBody,
  type AuthSpec,
  type BodySpec,
  type Targets,
  type Who,
} from './support/arbitraries';

const UPLOAD = '/api/v1/leads/upload';
const TOKEN = '/api/v1/auth/api-key/token';
const LEAD_FIELDS = ['phone', 'email', 'first_name', 'last_name', 'company', 'title'];
const UPLOAD_FIELDS = new Set([
  'campaign_id',
  'compliance_acknowledged',
  'leads',
  'source',
  'tags',
  'skip_duplicates',
  'disclaimer_version',
]);
const EVENT_TYPES = [
  'lead.created',
  'leads.bulk_created',
  'lead.status_changed',
  'lead.converted',
  'call.started',
  'call.completed',
  'form.submitted',
];
/** The contract's error codes and the status each one goes with (docs/api.md#errors). */
const CODES_BY_STATUS: Record<number, string[]> = {
  400: ['bad_request', 'invalid_campaign_id', 'compliance_not_acknowledged'],
  401: ['unauthorized'],
  403: ['forbidden'],
  404: ['not_found'],
  409: ['idempotency_conflict'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['validation_failed'],
  429: ['rate_limited'],
  // Transport limits met before routing (a path parameter over Fastify's maxParamLength, headers
  // over Node's 16 KiB): not in the contract's table, but still the envelope, with the code the
  // service's codeForStatus gives them.
  414: ['bad_request'],
  431: ['bad_request'],
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One generated request, symbolic where that keeps counterexamples readable. */
interface HostileRequest {
  method: string;
  path: string;
  auth: AuthSpec;
  contentType?: string;
  idempotencyKey?: string;
  body?: BodySpec;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Row counts per campaign of the tables an upload writes. */
type Counts = Map<number, { leads: number; imports: number; events: number }>;

/** fast-check options: a fixed seed only when replaying (FC_SEED / FC_PATH). */
function runs(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.FC_SEED;
  const path = process.env.FC_PATH;
  const scale = Number(process.env.FC_RUNS_SCALE ?? 1);
  return {
    numRuns: Math.round(numRuns * scale),
    ...(seed ? { seed: Number(seed) } : {}),
    ...(path ? { path } : {}),
  };
}

const PROPERTY_TIMEOUT_MS = 300_000;

describe('Hostile input never breaks the contract (property-based)', () => {
  let t: TestApp;
  let targets: Targets;
  let tokens: Record<Who, string>;
  let apiKeys: string[];
  /** Events an accepted upload into each campaign records per created lead and per upload. */
  let eventsPerUpload: Map<number, { perLead: number; perUpload: number }>;

  beforeAll(async () => {
    t = await startTestApp({
      RUN_WORKER: 'false',
      RATE_LIMIT_API_PER_MIN: '1000000',
      RATE_LIMIT_TOKEN_PER_MIN: '1000000',
    });
    const accountA = await t.given.account();
    const A = await t.given.campaign(accountA);
    const B = await t.given.campaign(accountA, 'GB');
    const accountC = await t.given.account();
    const C = await t.given.campaign(accountC);
    const keyA = await t.given.apiKey(accountA);
    const keyR = await t.given.apiKey(accountA, [B]);
    const keyC = await t.given.apiKey(accountC);
    const hook = 'http://127.0.0.1:9/hook';
    const endpointA = await t.given.endpoint(A, hook, ['lead.created', 'leads.bulk_created']);
    await t.given.endpoint(B, hook, ['leads.bulk_created']);
    const endpointC = await t.given.endpoint(C, hook, ['call.started']);
    eventsPerUpload = new Map([
      [A, { perLead: 1, perUpload: 1 }],
      [B, { perLead: 0, perUpload: 1 }],
      [C, { perLead: 0, perUpload: 0 }],
    ]);
    targets = {
      campaigns: { A, B, C },
      endpoints: { A: endpointA.id, C: endpointC.id },
      keys: {
        A: { id: keyA.id, accountId: accountA },
        R: { id: keyR.id, accountId: accountA },
        C: { id: keyC.id, accountId: accountC },
      },
    };
    apiKeys = [keyA.key, keyR.key, keyC.key];
    tokens = {
      A: await t.given.token(keyA.key),
      R: await t.given.token(keyR.key),
      C: await t.given.token(keyC.key),
    };
  });
  afterAll(() => t?.close());

  function authorization(auth: AuthSpec): string | undefined {
    switch (auth.kind) {
      case 'none':
        return undefined;
      case 'token':
        return auth.prefix + tokens[auth.who] + auth.suffix;
      case 'mangled':
        return `Bearer ${mangleJwt(tokens[auth.who], auth.how, auth.at)}`;
      case 'forged':
        return `Bearer ${forgeJwt(auth, t.config.jwtSecret)}`;
      case 'raw':
        return auth.value;
    }
  }

  /** Collects the response as text whatever its content type (HEAD: empty). */
  const asText = (res: NodeJS.ReadableStream, done: (err: Error | null, body: string) => void) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => done(null, text));
  };

  async function send(req: HostileRequest): Promise<Reply> {
    const agent = t.http() as unknown as Record<string, (path: string) => request.Test>;
    let test = agent[req.method.toLowerCase()].call(agent, req.path);
    const auth = authorization(req.auth);
    if (auth !== undefined) test = test.set('Authorization', auth);
    if (req.contentType !== undefined) test = test.set('Content-Type', req.contentType);
    if (req.idempotencyKey !== undefined) test = test.set('Idempotency-Key', req.idempotencyKey);
    if (req.body !== undefined) {
      // Bytes as they are: no serializer may touch them.
      test = test.serialize((bytes: unknown) => bytes as string).send(requestBytes(req.body));
    }
    const res = await test.buffer(true).parse(asText as never);
    return { status: res.status, headers: res.headers, text: res.body as string };
  }

  async function counts(): Promise<Counts> {
    const { A, B, C } = targets.campaigns;
    const rows: Array<{ id: number; leads: number; imports: number; events: number }> =
      await t.db.query(
        `SELECT c.id,
                (SELECT count(*) FROM lead WHERE campaign_id = c.id)::int AS leads,
                (SELECT count(*) FROM lead_import WHERE campaign_id = c.id)::int AS imports,
                (SELECT count(*) FROM webhook_event WHERE campaign_id = c.id)::int AS events
           FROM unnest($1::int[]) AS c(id)`,
        [[A, B, C]],
      );
    return new Map(rows.map(({ id, ...n }) => [id, n]));
  }

  /** The request and response, for failure messages (long parts cut). */
  function describeExchange(req: HostileRequest, res: Reply): string {
    const cut = (s: string, n = 1500) =>
      s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
    const body = req.body === undefined ? '(none)' : requestBytes(req.body).toString('utf8');
    return [
      `${req.method} ${req.path}`,
      `Authorization: ${cut(authorization(req.auth) ?? '(none)', 400)}`,
      `Content-Type: ${req.contentType ?? '(none)'}`,
      `Idempotency-Key: ${req.idempotencyKey ?? '(none)'}`,
      `body: ${cut(JSON.stringify(body))}`,
      `→ ${res.status} ${cut(res.text)}`,
    ].join('\n');
  }

  /** Parses a body the way the service does (UTF-8, a leading BOM tolerated), or undefined. */
  function parsedBody(req: HostileRequest): unknown {
    if (req.body === undefined) return undefined;
    try {
      return JSON.parse(
        requestBytes(req.body)
          .toString('utf8')
          .replace(/^\ufeff/, ''),
      );
    } catch {
      return undefined;
    }
  }

  /**
   * Sends `req` and checks the invariants of every response; returns the parsed 2xx body for
   * route-specific checks.
   */
  async function exchange(req: HostileRequest): Promise<{ res: Reply; json: unknown }> {
    const before = await counts();
    const res = await send(req);
    const after = await counts();
    const fail = (what: string): never => {
      throw new Error(`${what}\n${describeExchange(req, res)}`);
    };
    if (res.status >= 500) fail(`server error ${res.status}`);

    let json: unknown;
    if (req.method !== 'HEAD' && res.status !== 204) {
      try {
        json = JSON.parse(res.text);
      } catch {
        fail('response body is not JSON');
      }
      const type = String(res.headers['content-type'] ?? '');
      if (!type.startsWith('application/json')) fail(`response Content-Type is ${type}`);
    }

    if (res.status < 200 || res.status >= 300) {
      const codes = CODES_BY_STATUS[res.status];
      if (!codes) fail(`status ${res.status} is not one of the contract's`);
      if (req.method !== 'HEAD') {
        const envelope = json as Record<string, unknown>;
        if (
          envelope === null ||
          typeof envelope !== 'object' ||
          Array.isArray(envelope) ||
          Object.keys(envelope).sort().join(',') !== 'error,message' ||
          typeof envelope.message !== 'string' ||
          typeof envelope.error !== 'string'
        ) {
          fail('error body is not exactly {error, message} with two strings');
        }
        if (!codes.includes(envelope.error as string))
          fail(`error code ${String(envelope.error)} does not go with status ${res.status}`);
      }
      if (res.status === 401 && res.headers['www-authenticate'] !== 'Bearer')
        fail('401 without WWW-Authenticate: Bearer');
      for (const [id, n] of before) {
        const m = after.get(id)!;
        if (m.leads !== n.leads || m.imports !== n.imports || m.events !== n.events)
          fail(`a rejected request wrote rows in campaign ${id}: ${JSON.stringify({ n, m })}`);
      }
      return { res, json };
    }

    if (req.method === 'POST' && req.path === UPLOAD && res.status === 202) {
      await checkAccepted(req, res, json, before, after, fail);
    } else {
      for (const [id, n] of before) {
        const m = after.get(id)!;
        if (m.leads !== n.leads || m.imports !== n.imports || m.events !== n.events)
          fail(`a ${res.status} to ${req.method} ${req.path} wrote rows in campaign ${id}`);
      }
    }
    return { res, json };
  }

  /** The 202 of an upload: self-consistent, true to the request, and to the rows written. */
  async function checkAccepted(
    req: HostileRequest,
    res: Reply,
    json: unknown,
    before: Counts,
    after: Counts,
    fail: (what: string) => never,
  ): Promise<void> {
    const body = json as Record<string, unknown>;
    const keys = 'duplicate_count,errors,import_id,invalid_count,received_count,status,valid_count';
    if (Object.keys(body).sort().join(',') !== keys) fail('202 body has other fields');
    const { received_count: received, valid_count: valid, invalid_count: invalid } = body;
    const duplicates = body.duplicate_count;
    const errors = body.errors as Array<Record<string, unknown>>;
    const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
    if (body.status !== 'accepted') fail('202 status is not "accepted"');
    if (typeof body.import_id !== 'string' || !UUID.test(body.import_id))
      fail('import_id is not a UUID');
    if (![received, valid, invalid, duplicates].every(isCount)) fail('a count is not a count');
    const [r, v, i, d] = [received, valid, invalid, duplicates] as number[];
    if (r !== v + i) fail('received_count != valid_count + invalid_count');
    if (!Array.isArray(errors) || errors.length !== i) fail('errors.length != invalid_count');
    if (d > v) fail('duplicate_count > valid_count');
    errors.forEach((e, k) => {
      if (Object.keys(e).sort().join(',') !== 'message,row,var_field')
        fail(`errors[${k}] is not {row, var_field, message}`);
      if (!Number.isInteger(e.row) || (e.row as number) < 0 || (e.row as number) >= r)
        fail(`errors[${k}].row is out of range`);
      if (k > 0 && (e.row as number) <= (errors[k - 1].row as number))
        fail('errors are not sorted by row (one per row)');
      if (!LEAD_FIELDS.includes(e.var_field as string)) fail(`errors[${k}].var_field is unknown`);
      if (typeof e.message !== 'string' || e.message === '') fail(`errors[${k}].message is empty`);
    });

    // True to the request: only a well-formed envelope is accepted.
    const sent = parsedBody(req) as Record<string, unknown> | undefined;
    if (sent !== undefined) {
      if (sent.compliance_acknowledged !== true) fail('202 without compliance_acknowledged: true');
      if (!Number.isInteger(sent.campaign_id)) fail('202 with a campaign_id that is no integer');
      if (!Array.isArray(sent.leads) || sent.leads.length !== r)
        fail('received_count is not the number of leads sent');
      const unknown = Object.keys(sent).filter((k) => !UPLOAD_FIELDS.has(k));
      if (unknown.length > 0) fail(`202 despite unknown fields ${unknown.join(', ')}`);
      if (sent.skip_duplicates === false && d !== 0)
        fail('duplicate_count > 0 with skip_duplicates: false');
    }

    // True to the rows: the import record, its leads, and the events.
    const [record] = await t.db.query(
      `SELECT campaign_id, received_count, valid_count, invalid_count, duplicate_count
         FROM lead_import WHERE id = $1`,
      [body.import_id],
    );
    if (!record) fail('no lead_import row for import_id');
    const recorded = [record.received_count, record.valid_count, record.invalid_count];
    if (recorded.join() !== [r, v, i].join() || record.duplicate_count !== d)
      fail(`lead_import counts differ: ${JSON.stringify(record)}`);
    const [{ n: stored }] = await t.db.query(
      'SELECT count(*)::int AS n FROM lead WHERE import_id = $1',
      [body.import_id],
    );
    if (stored !== v - d) fail(`${stored} leads stored, valid_count - duplicate_count = ${v - d}`);

    const replayed = res.headers['idempotent-replayed'] === 'true';
    const campaign = record.campaign_id as number;
    for (const [id, n] of before) {
      const m = after.get(id)!;
      const delta = {
        leads: m.leads - n.leads,
        imports: m.imports - n.imports,
        events: m.events - n.events,
      };
      const per = eventsPerUpload.get(id)!;
      const expected =
        replayed || id !== campaign
          ? { leads: 0, imports: 0, events: 0 }
          : {
              leads: v - d,
              imports: 1,
              events: v - d > 0 ? per.perLead * (v - d) + per.perUpload : 0,
            };
      if (JSON.stringify(delta) !== JSON.stringify(expected))
        fail(
          `campaign ${id} rows changed by ${JSON.stringify(delta)}, expected ${JSON.stringify(expected)}`,
        );
    }
  }

  it(
    'POST /leads/upload: valid bodies with hostile leads and mutated fields, any auth',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          uploadBody(targets),
          authSpec(targets),
          contentType,
          idempotencyKey,
          async (body, auth, type, key) => {
            await exchange({
              method: 'POST',
              path: UPLOAD,
              auth,
              contentType: type,
              idempotencyKey: key,
              body: { kind: 'json', value: body },
            });
          },
        ),
        runs(1200),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /leads/upload and /auth/api-key/token: malformed, non-object and odd-encoding bodies',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(UPLOAD, TOKEN),
          rawBody(targets),
          authSpec(targets),
          contentType,
          idempotencyKey,
          async (path, body, auth, type, key) => {
            await exchange({
              method: 'POST',
              path,
              auth,
              contentType: type,
              idempotencyKey: key,
              body,
            });
          },
        ),
        runs(500),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /auth/api-key/token: hostile api_key values; 200 only for a real key',
    async () => {
      const apiKey = fc.oneof(
        fc.constantFrom(...apiKeys),
        fc.constantFrom(...apiKeys).map((k) => k + '\u0000'),
        fc.constantFrom(...apiKeys).map((k) => ` ${k} `),
        fc.constantFrom(...apiKeys).map((k) => k.toUpperCase()),
        fc.constantFrom(...apiKeys).map((k) => k.slice(0, -1)),
        fc.constantFrom('capi_', 'capi_' + 'A'.repeat(43), 'x'.repeat(513), '', ' '),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.jsonValue({ maxDepth: 2 }),
      );
      const body = fc.oneof(
        { weight: 5, arbitrary: apiKey.map((k) => ({ api_key: k })) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(apiKey, fc.jsonValue({ maxDepth: 2 }))
            .map(([k, extra]) => ({ api_key: k, extra })),
        },
        {
          // `{"api_key": …, "constructor": …}` and the like: prototype member names as fields.
          weight: 1,
          arbitrary: fc
            .tuple(apiKey, prototypeKey, hostileValue)
            .map(([k, key, v]) =>
              Object.defineProperty({ api_key: k }, key, { value: v, enumerable: true }),
            ),
        },
        {
          weight: 1,
          arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), {
            maxKeys: 3,
          }),
        },
      );
      await fc.assert(
        fc.asyncProperty(body, authSpec(targets), contentType, async (value, auth, type) => {
          const req: HostileRequest = {
            method: 'POST',
            path: TOKEN,
            auth,
            contentType: type,
            body: { kind: 'json', value },
          };
          const { res, json } = await exchange(req);
          if (res.status === 200) {
            const sent = (value as { api_key?: unknown }).api_key;
            const reply = json as Record<string, unknown>;
            expect(apiKeys).toContain(sent);
            expect(Object.keys(reply).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
            expect(reply).toMatchObject({ token_type: 'bearer', expires_in: 900 });
          }
        }),
        runs(300),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'GET /webhooks/{campaign_id}/…: hostile path ids, any auth',
    async () => {
      const { A, B, C } = targets.campaigns;
      const campaignSegment = pathId([A, A, B, C]);
      const endpointSegment = pathId([targets.endpoints.A, targets.endpoints.C]);
      const route = fc.oneof(
        campaignSegment.map((cid) => `/api/v1/webhooks/${cid}/events`),
        campaignSegment.map((cid) => `/api/v1/webhooks/${cid}/endpoints`),
        fc
          .tuple(campaignSegment, endpointSegment)
          .map(([cid, eid]) => `/api/v1/webhooks/${cid}/endpoints/${eid}/health`),
        fc
          .tuple(campaignSegment, endpointSegment)
          .map(([cid, eid]) => `/api/v1/webhooks/${cid}/endpoints/${eid}`),
      );
      const suffix = fc.constantFrom('', '', '', '/', '?campaign_id=1', '?x=%zz', '//', '#frag');
      await fc.assert(
        fc.asyncProperty(
          route,
          suffix,
          fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
          authSpec(targets),
          async (path, tail, method, auth) => {
            const req: HostileRequest = { method, path: path + tail, auth };
            const { res, json } = await exchange(req);
            if (res.status !== 200 || method === 'HEAD') return;
            const cid = decodeURIComponent(path.split('/')[4]);
            if (!/^[1-9][0-9]*$/.test(cid)) throw new Error(`200 for campaign id ${cid}\n${path}`);
            if (path.endsWith('/events')) expect(json).toEqual(EVENT_TYPES);
            if (path.endsWith('/endpoints')) {
              expect(Array.isArray(json)).toBe(true);
              expect(JSON.stringify(json)).not.toMatch(/secret|whsec_/);
            }
            // Counts only: workers of other test files may attempt this file's deliveries
            // (any worker's sweeper serves the shared database, as in production).
            if (path.endsWith('/health')) {
              const total = (json as { total_deliveries: unknown }).total_deliveries;
              expect(Number.isInteger(total) && (total as number) >= 0).toBe(true);
            }
          },
        ),
        runs(600),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'any method on known, unknown and odd paths',
    async () => {
      const { A } = targets.campaigns;
      const path = fc.oneof(
        fc.constantFrom(
          UPLOAD,
          TOKEN,
          `/api/v1/webhooks/${A}/events`,
          `/api/v1/webhooks/${A}/endpoints`,
          `/api/v1/webhooks/${A}/endpoints/${targets.endpoints.A}/health`,
          '/health/live',
          '/health/ready',
          '/',
          '/api',
          '/api/v1',
          '/api/v1/',
          `${UPLOAD}/`,
          `${UPLOAD}//`,
          '/api/v1/leads/UPLOAD',
          '/API/V1/leads/upload',
          '/api/v1/leads/upload%00',
          '/api/v1/leads/%2e%2e/leads/upload',
          '/api/v1/leads/../leads/upload',
          '/api/v2/leads/upload',
          '/health',
          '/health/live/x',
          '/%',
          '/%zz',
          '/..%2F..%2Fetc%2Fpasswd',
        ),
        fc.webPath().map((p) => `/api/v1${p.startsWith('/') ? p : `/${p}`}`),
        fc
          .tuple(
            fc.constantFrom('/api/v1/', '/api/v1/leads/', '/api/v1/webhooks/', '/health/', '/'),
            fc.string({ unit: 'grapheme', minLength: 1, maxLength: 16 }),
          )
          .map(([prefix, s]) => prefix + encodeURIComponent(s)),
      );
      const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
      const body = fc.option(rawBody(targets), { nil: undefined });
      await fc.assert(
        fc.asyncProperty(
          method,
          path,
          authSpec(targets),
          contentType,
          body,
          async (m, p, auth, type, b) => {
            // A GET or HEAD carries no body here (superagent cannot send one for HEAD).
            const withBody = m === 'GET' || m === 'HEAD' ? undefined : b;
            await exchange({ method: m, path: p, auth, contentType: type, body: withBody });
          },
        ),
        runs(300),
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
