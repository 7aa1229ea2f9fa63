import { startTestApp, type TestApp, uploadBody } from './support/test-app';

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
