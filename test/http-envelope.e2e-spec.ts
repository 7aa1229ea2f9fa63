import { startTestApp, type TestApp, uploadBody } from './support/test-app';
import { TcpProxy } from './support/tcp-proxy';
import { TEST_DATABASE_URL } from './support/env';

const UPLOAD = '/api/v1/leads/upload';
const TOKEN = '/api/v1/auth/api-key/token';

describe('One error envelope everywhere (docs/api.md#conventions)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers 404 not_found for an unknown route', async () => {
    for (const path of ['/api/v1/nope', '/', '/api/v2/leads/upload']) {
      const res = await t.http().get(path).expect(404);
      expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
    const wrongMethod = await t.http().get(UPLOAD).expect(404);
    expect(wrongMethod.body.error).toBe('not_found');
  });

  it('answers 400 bad_request for malformed JSON, before authentication', async () => {
    const res = await t
      .http()
      .post(UPLOAD)
      .set('Content-Type', 'application/json')
      .send('{"campaign_id": 1,')
      .expect(400);
    expect(res.body).toEqual({ error: 'bad_request', message: expect.any(String) });
  });

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"x"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('answers 400 bad_request when the body is %s', async (_name, raw) => {
    const res = await t
      .http()
      .post(TOKEN)
      .set('Content-Type', 'application/json')
      .send(raw)
      .expect(400);
    expect(res.body).toEqual({
      error: 'bad_request',
      message: 'Request body must be a JSON object',
    });
  });

  it('answers 400 for an empty JSON body', async () => {
    const res = await t
      .http()
      .post(TOKEN)
      .set('Content-Type', 'application/json')
      .send('')
      .expect(400);
    expect(res.body.error).toBe('bad_request');
  });

  it.each([
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'api_key=x'],
    ['application/xml', '<a/>'],
  ])(
    'answers 415 unsupported_media_type for a %s POST, before authentication',
    async (type, raw) => {
      const res = await t.http().post(UPLOAD).set('Content-Type', type).send(raw).expect(415);
      expect(res.body).toEqual({ error: 'unsupported_media_type', message: expect.any(String) });
    },
  );

  it('answers 415 for a POST without a Content-Type', async () => {
    const res = await t.http().post(TOKEN).expect(415);
    expect(res.body.error).toBe('unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const res = await t
      .http()
      .post(TOKEN)
      .set('Content-Type', 'application/json; charset=utf-8')
      .send('{"api_key":"capi_x"}')
      .expect(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('answers 413 payload_too_large for a body over 16 MiB, before authentication', async () => {
    const big = JSON.stringify({
      campaign_id: 1,
      leads: [{ phone: '1'.repeat(16 * 1024 * 1024) }],
    });
    const res = await t
      .http()
      .post(UPLOAD)
      .set('Content-Type', 'application/json')
      .send(big)
      .expect(413);
    expect(res.body).toEqual({ error: 'payload_too_large', message: expect.any(String) });
  });

  it('sends a request id on every response and reuses a well-formed incoming one', async () => {
    const generated = await t.http().get('/api/v1/nope');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await t
      .http()
      .get('/health/live')
      .set('X-Request-Id', 'trace-abc.123')
      .expect(200);
    expect(echoed.headers['x-request-id']).toBe('trace-abc.123');
    const replaced = await t.http().get('/health/live').set('X-Request-Id', 'bad id\twith spaces');
    expect(replaced.headers['x-request-id']).not.toBe('bad id\twith spaces');
  });

  it('serves liveness and readiness outside /api/v1 without authentication', async () => {
    expect((await t.http().get('/health/live').expect(200)).body).toEqual({ status: 'ok' });
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body.status).toBe('ok');
    expect(ready.body.details.database.status).toBe('up');
  });

  it('never adds statusCode or stack to an error body', async () => {
    const res = await t
      .http()
      .post(UPLOAD)
      .set('Authorization', 'Bearer x')
      .send(uploadBody(1, []));
    expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
  });
});

describe('PostgreSQL outage (docs/api.md#errors: 503, recovering by itself)', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  beforeAll(async () => {
    const target = new URL(TEST_DATABASE_URL);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.port = String(proxy.port);
    t = await startTestApp({ DATABASE_URL: viaProxy.toString() });
  });
  afterAll(async () => {
    await t.close();
    await proxy.stop();
  });

  it('answers 503 service_unavailable while the database is down and recovers when it returns', async () => {
    const caller = await t.given.caller();
    await t.http().post(TOKEN).send({ api_key: caller.apiKey }).expect(200);
    // A key never exchanged yet: its exchange must read PostgreSQL (active keys are cached).
    const { key: freshKey } = await t.given.apiKey(caller.accountId);

    await proxy.stop();
    for (let i = 0; i < 3; i++) {
      const res = await t.http().post(TOKEN).send({ api_key: freshKey });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'service_unavailable', message: expect.any(String) });
    }
    const upload = await t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, [{ phone: '+14155550100' }]));
    expect([503]).toContain(upload.status);
    const ready = await t.http().get('/health/ready').expect(503);
    expect(ready.body.error).toBe('service_unavailable');

    await proxy.start();
    const after = await t.http().post(TOKEN).send({ api_key: freshKey }).expect(200);
    expect(after.body.token_type).toBe('bearer');
    await t.http().get('/health/ready').expect(200);
  });
});

describe('Redis outage (docs/api.md#errors, docs/operations.md: degrade, never crash)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Nothing listens on port 1: Redis is unreachable for this app from the start.
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1', RUN_WORKER: 'false' });
  });
  afterAll(() => t.close());

  it('reports not ready, keeps serving, and keeps accepting uploads into the outbox', async () => {
    await t.http().get('/health/live').expect(200);
    const ready = await t.http().get('/health/ready').expect(503);
    expect(ready.body).toEqual({ error: 'service_unavailable', message: expect.any(String) });

    const caller = await t.given.caller();
    const { id } = await t.given.endpoint(caller.campaignId, 'https://example.com/hook', [
      'leads.bulk_created',
    ]);
    const res = await t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, [{ phone: '+14155550100' }]))
      .expect(202);
    expect(res.body.valid_count).toBe(1);
    // The delivery is committed and waits for the sweeper once Redis is back.
    const [delivery] = await t.db.query(
      'SELECT status FROM webhook_delivery WHERE endpoint_id = $1',
      [id],
    );
    expect(delivery).toEqual({ status: 'pending' });
  });
});

describe('Regressions found by the hostile-input property test', () => {
  let t: TestApp;
  let me: Awaited<ReturnType<TestApp['given']['caller']>>;
  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    me = await t.given.caller();
  });
  afterAll(() => t.close());

  const upload = (body: object) =>
    t.http().post(UPLOAD).set('Authorization', `Bearer ${me.token}`).send(body);
  const importsOf = async () =>
    (
      await t.db.query('SELECT count(*)::int AS n FROM lead_import WHERE campaign_id = $1', [
        me.campaignId,
      ])
    )[0].n;

  it('counts source and disclaimer_version in code points, as PostgreSQL does (422, not 500)', async () => {
    const selectors = 'a\uFE0F'.repeat(51); // 102 code points
    const res = await upload(
      uploadBody(me.campaignId, [{ phone: '+14155550001' }], { source: selectors }),
    ).expect(422);
    expect(res.body.message).toMatch(/source must be at most 100 characters/);
    const version = await upload(
      uploadBody(me.campaignId, [{ phone: '+14155550001' }], {
        disclaimer_version: 'a\uFE0F'.repeat(17),
      }),
    ).expect(422);
    expect(version.body.message).toMatch(/disclaimer_version/);
    expect(await importsOf()).toBe(0);
  });

  it('reports an email with a lone surrogate as an invalid lead', async () => {
    const res = await upload(
      uploadBody(me.campaignId, [{ phone: '+14155550001', email: '\ud800' }]),
    ).expect(202);
    expect(res.body.errors).toEqual([
      { row: 0, var_field: 'email', message: 'email is not a valid email address' },
    ]);
  });

  it('answers 400 for a body nested too deeply, with or without an Idempotency-Key', async () => {
    const deep = `{"campaign_id":${me.campaignId},"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    for (const key of [undefined, 'deep']) {
      const req = t
        .http()
        .post(UPLOAD)
        .set('Authorization', `Bearer ${me.token}`)
        .set('Content-Type', 'application/json');
      if (key) req.set('Idempotency-Key', key);
      const res = await req.send(deep).expect(400);
      expect(res.body).toEqual({ error: 'bad_request', message: expect.stringMatching(/nests/) });
    }
  });

  it('treats Object.prototype names such as "constructor" as ordinary unknown fields', async () => {
    const token = await t
      .http()
      .post(TOKEN)
      .send({ api_key: 'capi_x', constructor: null })
      .expect(401);
    expect(token.body.error).toBe('unauthorized');
    await t.http().post(TOKEN).send({ api_key: 123, constructor: {} }).expect(400);
    await t.http().post(TOKEN).send({ api_key: me.apiKey, toString: 1 }).expect(200);
    const res = await upload({
      ...uploadBody(me.campaignId, [{ phone: '+14155550001' }]),
      constructor: {},
    }).expect(422);
    expect(res.body.message).toBe('constructor is not a known field');
  });

  it('answers 401 for a correctly signed token whose payload is not an object', async () => {
    const { createHmac } = await import('node:crypto');
    const unsigned = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from('null').toString('base64url')}`;
    const jwt = `${unsigned}.${createHmac('sha256', t.config.jwtSecret).update(unsigned).digest('base64url')}`;
    const res = await t
      .http()
      .get(`/api/v1/webhooks/${me.campaignId}/events`)
      .set('Authorization', `Bearer ${jwt}`)
      .expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'The bearer token is invalid' });
  });

  it('keeps the envelope for malformed URLs, over-long path ids and oversized headers', async () => {
    for (const path of ['/%', '/api/v1/webhooks/%C0%AF/events']) {
      const res = await t.http().get(path).expect(400);
      expect(res.body).toEqual({ error: 'bad_request', message: expect.any(String) });
    }
    const long = await t
      .http()
      .get(`/api/v1/webhooks/${'1'.repeat(101)}/events`)
      .set('Authorization', `Bearer ${me.token}`)
      .expect(400);
    expect(long.body.error).toBe('invalid_campaign_id');
    const huge = await t
      .http()
      .get('/health/live')
      .set('Authorization', `Bearer ${'a'.repeat(17_000)}`);
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.text)).toEqual({
      error: 'bad_request',
      message: 'Request headers are too large',
    });
  });
});
