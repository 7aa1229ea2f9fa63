import { startTestApp, type TestApp, uploadBody } from './support/test-app';
import request from 'supertest';
import { ServiceProcess, PROCESS_START_TIMEOUT_MS } from './support/processes';

const TOKEN = '/api/v1/auth/api-key/token';

describe('Rate limits (docs/configuration.md)', () => {
  const shared = {
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-rate`,
    RATE_LIMIT_TOKEN_PER_MIN: '3',
    RATE_LIMIT_API_PER_MIN: '4',
    RUN_WORKER: 'false',
  };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    // Two API processes sharing one Redis: limits must hold across both.
    a = await startTestApp(shared);
    b = await startTestApp(shared);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('limits token exchanges per client IP across processes, with Retry-After', async () => {
    const { key } = await a.given.apiKey(await a.given.account());
    await a.http().post(TOKEN).send({ api_key: key }).expect(200);
    await b.http().post(TOKEN).send({ api_key: key }).expect(200);
    await a.http().post(TOKEN).send({ api_key: 'capi_wrong' }).expect(401);
    const limited = await b.http().post(TOKEN).send({ api_key: key }).expect(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('limits other requests per API key across processes, leaving other keys alone', async () => {
    const account = await a.given.account();
    const campaign = await a.given.campaign(account);
    const first = await a.given.apiKey(account);
    const second = await a.given.apiKey(account);
    // Tokens are minted directly by the service so the token limit above is not in the way.
    const { TokenService } = await import('../src/auth/token.service');
    const tokenOf = async (apiKey: string) =>
      (await a.app.get(TokenService).exchange(apiKey)).access_token;
    const [t1, t2] = [await tokenOf(first.key), await tokenOf(second.key)];
    const get = (t: TestApp, token: string) =>
      t.http().get(`/api/v1/webhooks/${campaign}/events`).set('Authorization', `Bearer ${token}`);

    for (const t of [a, b, a, b]) await get(t, t1).expect(200);
    const limited = await get(a, t1).expect(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    const upload = await b
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${t1}`)
      .send(uploadBody(campaign, [{ phone: '+14155550100' }]));
    expect(upload.status).toBe(429);
    const [{ n }] = await a.db.query(
      'SELECT count(*)::int AS n FROM lead_import WHERE campaign_id = $1',
      [campaign],
    );
    expect(n).toBe(0);

    await get(b, t2).expect(200);
  });

  it('does not limit health checks', async () => {
    for (let i = 0; i < 8; i++) await a.http().get('/health/live').expect(200);
  });
});

describe('Security headers and CORS (docs/operations.md)', () => {
  let t: TestApp;
  let withCors: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    withCors = await startTestApp({ RUN_WORKER: 'false', CORS_ORIGINS: 'https://app.example.com' });
  });
  afterAll(async () => {
    await t.close();
    await withCors.close();
  });

  it('sends helmet headers and no X-Powered-By on success and error responses', async () => {
    for (const res of [
      await t.http().get('/health/live'),
      await t.http().get('/api/v1/nope'),
      await t.http().post(TOKEN).send({}),
      await t.http().get('/api/v1/webhooks/1/events'), // 401, answered before any route code
    ]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBeDefined();
      expect(res.headers['strict-transport-security']).toBeDefined();
      expect(res.headers['content-security-policy']).toBeDefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('has CORS off unless configured', async () => {
    const res = await t.http().get('/health/live').set('Origin', 'https://evil.example.com');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const allowed = await withCors
      .http()
      .get('/health/live')
      .set('Origin', 'https://app.example.com');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const other = await withCors
      .http()
      .get('/health/live')
      .set('Origin', 'https://evil.example.com');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('Idempotency-Key on POST /leads/upload (docs/api.md#idempotent-retries)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
  });
  afterAll(() => t.close());

  const upload = (token: string, body: object, key?: string) => {
    const req = t.http().post('/api/v1/leads/upload').set('Authorization', `Bearer ${token}`);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const importsOf = async (campaignId: number) =>
    (
      await t.db.query('SELECT count(*)::int AS n FROM lead_import WHERE campaign_id = $1', [
        campaignId,
      ])
    )[0].n as number;

  it('replays the first response for a retry with the same key and body', async () => {
    const me = await t.given.caller();
    const body = uploadBody(me.campaignId, [{ phone: '+14155550100' }, { phone: 'bad' }]);
    const first = await upload(me.token, body, 'retry-1').expect(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await upload(me.token, body, 'retry-1').expect(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await importsOf(me.campaignId)).toBe(1);
  });

  it('answers 409 for the same key with a different body, writing nothing', async () => {
    const me = await t.given.caller();
    await upload(me.token, uploadBody(me.campaignId, [{ phone: '+14155550100' }]), 'k').expect(202);
    const res = await upload(
      me.token,
      uploadBody(me.campaignId, [{ phone: '+14155550101' }]),
      'k',
    ).expect(409);
    expect(res.body).toEqual({ error: 'idempotency_conflict', message: expect.any(String) });
    expect(await importsOf(me.campaignId)).toBe(1);
  });

  it('lets only one of two simultaneous requests with one key import', async () => {
    const me = await t.given.caller();
    const leads = Array.from({ length: 5000 }, (_, i) => ({
      phone: `+1212555${String(i).padStart(4, '0')}`,
    }));
    const body = uploadBody(me.campaignId, leads);
    const [a, b] = await Promise.all([
      upload(me.token, body, 'same'),
      upload(me.token, body, 'same'),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(202);
    const second = a.status === 202 && !a.headers['idempotent-replayed'] ? b : a;
    if (second.status === 202) expect(second.headers['idempotent-replayed']).toBe('true');
    else
      expect(second.body).toEqual({
        error: 'idempotency_conflict',
        message: expect.stringMatching(/still being processed/),
      });
    expect(await importsOf(me.campaignId)).toBe(1);
    const [{ n }] = await t.db.query('SELECT count(*)::int AS n FROM lead WHERE campaign_id = $1', [
      me.campaignId,
    ]);
    expect(n).toBe(5000);
  });

  it('scopes keys to the API key', async () => {
    const me = await t.given.caller();
    const other = await t.given.apiKey(me.accountId);
    const otherToken = await t.given.token(other.key);
    await upload(me.token, uploadBody(me.campaignId, [{ phone: '+14155550100' }]), 'shared').expect(
      202,
    );
    const res = await upload(
      otherToken,
      uploadBody(me.campaignId, [{ phone: '+14155550101' }]),
      'shared',
    ).expect(202);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await importsOf(me.campaignId)).toBe(2);
  });

  it('frees the key when the request is rejected', async () => {
    const me = await t.given.caller();
    await upload(
      me.token,
      { ...uploadBody(me.campaignId, [{ phone: '+14155550100' }]), tags: 5 },
      'fix-me',
    ).expect(422);
    const res = await upload(
      me.token,
      uploadBody(me.campaignId, [{ phone: '+14155550100' }]),
      'fix-me',
    ).expect(202);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 400 for a key longer than 255 characters', async () => {
    const me = await t.given.caller();
    const res = await upload(
      me.token,
      uploadBody(me.campaignId, [{ phone: '+14155550100' }]),
      'k'.repeat(256),
    ).expect(400);
    expect(res.body).toEqual({
      error: 'bad_request',
      message: 'Idempotency-Key must be 1 to 255 characters',
    });
    expect(await importsOf(me.campaignId)).toBe(0);
  });
});

describe('Logs of the running service (docs/operations.md#logs)', () => {
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

  const entries = () =>
    api.output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; context?: string; request_id?: string });

  it('prints the listening line after every start-up line, as JSON through the same logger', () => {
    const lines = entries();
    const listening = lines.findIndex((line) => line.msg.includes('listening on'));
    const started = lines.findIndex((line) => line.msg === 'Nest application successfully started');
    expect(started).toBeGreaterThan(0);
    expect(listening).toBeGreaterThan(started);
    expect(lines[listening]).toMatchObject({ level: 30, migrations_applied: expect.any(Array) });
    const startUp = ['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer'];
    const lastStartUpLine = lines.findLastIndex((line) => startUp.includes(line.context ?? ''));
    expect(listening).toBeGreaterThan(lastStartUpLine);
  });

  it('logs each request exactly once, health checks included', async () => {
    const requests = [
      ['/health/live', 200],
      ['/health/ready', 200],
      ['/api/v1/webhooks/1/events', 401],
      ['/api/v1/nope', 404],
    ] as const;
    const ids: string[] = [];
    for (const [path, status] of requests) {
      const id = `logs-${ids.length}-${Date.now()}`;
      await request(base).get(path).set('X-Request-Id', id).expect(status);
      ids.push(id);
    }
    // Lines are written in order: once a later request's line is out, so is any repeat of these.
    const last = `logs-last-${Date.now()}`;
    await request(base).get('/health/live').set('X-Request-Id', last).expect(200);
    await api.waitForOutput(new RegExp(`"request_id":"${last}".*"request completed"`));
    const completed = entries().filter((line) => line.msg === 'request completed');
    for (const id of ids) {
      expect(completed.filter((line) => line.request_id === id)).toHaveLength(1);
    }
  });
});
