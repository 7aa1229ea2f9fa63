import { createHmac } from 'node:crypto';
import { startTestApp, type TestApp, uploadBody } from './support/test-app';
import { ACTIVE_KEY_CACHE_TTL_MS, KEY_ACCESS_CACHE_TTL_MS } from '../src/auth/api-keys.service';

const TOKEN_PATH = '/api/v1/auth/api-key/token';

function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString(
    'base64url',
  );
}

/** Signs arbitrary header/claims with HS256 and `secret`, to forge tokens. */
function signJwt(header: object, claims: object, secret: string): string {
  const unsigned = `${b64url(header)}.${b64url(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

function decodeClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<
    string,
    unknown
  >;
}

describe('Authentication (docs/api.md#authentication)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** An authenticated GET-free probe: an upload with no leads answers 400 only once auth passed. */
  const probe = (campaignId: number, authorization?: string) => {
    const req = t.http().post('/api/v1/leads/upload');
    if (authorization !== undefined) req.set('Authorization', authorization);
    return req.send(uploadBody(campaignId, [{ phone: '+14155552671' }]));
  };

  describe('POST /auth/api-key/token', () => {
    it('exchanges a valid key for an HS256 bearer token with the contract claims', async () => {
      const accountId = await t.given.account();
      const { id, key } = await t.given.apiKey(accountId);
      const res = await t.http().post(TOKEN_PATH).send({ api_key: key }).expect(200);

      expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
      expect(res.body.token_type).toBe('bearer');
      expect(res.body.expires_in).toBe(900);
      const [header] = (res.body.access_token as string).split('.');
      expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({
        alg: 'HS256',
      });
      const claims = decodeClaims(res.body.access_token);
      expect(claims).toMatchObject({
        sub: String(id),
        acc: accountId,
        iss: 'campaign-api',
        aud: 'campaign-api',
      });
      expect(claims.exp as number).toBe((claims.iat as number) + 900);
      expect(claims.jti).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));

      // Recorded off the response path: wait briefly for it.
      let lastUsedAt: Date | null = null;
      for (let i = 0; i < 40 && lastUsedAt === null; i++) {
        [{ last_used_at: lastUsedAt }] = await t.db.query(
          'SELECT last_used_at FROM api_key WHERE id = $1',
          [id],
        );
        if (lastUsedAt === null) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(lastUsedAt).toBeInstanceOf(Date);
    });

    it('issues keys with a recognisable prefix and stores only their SHA-256 hash', async () => {
      const { id, key } = await t.given.apiKey(await t.given.account());
      expect(key).toMatch(/^capi_[A-Za-z0-9_-]{43}$/);
      const [row] = await t.db.query('SELECT key_hash, key_prefix FROM api_key WHERE id = $1', [
        id,
      ]);
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_hash).not.toContain(key.slice(5, 20));
      expect(key.startsWith(row.key_prefix)).toBe(true);
    });

    it('answers 401 with WWW-Authenticate for an unknown key', async () => {
      const res = await t.http().post(TOKEN_PATH).send({ api_key: 'capi_unknown' }).expect(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('answers 401 for a revoked key', async () => {
      const accountId = await t.given.account();
      const { key, id } = await t.given.apiKey(accountId);
      await t.db.query('UPDATE api_key SET revoked_at = now() WHERE id = $1', [id]);
      const res = await t.http().post(TOKEN_PATH).send({ api_key: key }).expect(401);
      expect(res.body.error).toBe('unauthorized');
    });

    it.each([
      ['missing', {}],
      ['null', { api_key: null }],
      ['a number', { api_key: 42 }],
      ['empty', { api_key: '' }],
    ])('answers 400 bad_request when api_key is %s', async (_name, body) => {
      const res = await t.http().post(TOKEN_PATH).send(body).expect(400);
      expect(res.body).toEqual({
        error: 'bad_request',
        message: expect.stringContaining('api_key'),
      });
    });

    it('never echoes the API key in the response', async () => {
      const { key } = await t.given.apiKey(await t.given.account());
      const res = await t.http().post(TOKEN_PATH).send({ api_key: key }).expect(200);
      expect(JSON.stringify(res.body)).not.toContain(key);
    });
  });

  describe('bearer tokens', () => {
    let campaignId: number;
    let accountId: number;
    let apiKeyId: number;
    let token: string;
    beforeAll(async () => {
      ({ campaignId, accountId, apiKeyId, token } = await t.given.caller());
    });

    it('accepts the issued token', async () => {
      const res = await probe(campaignId, `Bearer ${token}`).expect(202);
      expect(res.body.status).toBe('accepted');
    });

    it.each([
      ['no Authorization header', undefined],
      ['an empty bearer', 'Bearer '],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['a malformed token', 'Bearer not.a.jwt'],
    ])('answers 401 for %s', async (_name, authorization) => {
      const res = await probe(campaignId, authorization).expect(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('answers 401 for an API key sent as the bearer token', async () => {
      const { key } = await t.given.apiKey(accountId);
      await probe(campaignId, `Bearer ${key}`).expect(401);
    });

    it('answers 401 for alg none', async () => {
      const claims = decodeClaims(token);
      const forged = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
      const res = await probe(campaignId, `Bearer ${forged}`).expect(401);
      expect(res.body.error).toBe('unauthorized');
    });

    it('answers 401 for a token signed with another secret', async () => {
      const forged = signJwt(
        { alg: 'HS256', typ: 'JWT' },
        decodeClaims(token),
        'another-secret-of-sufficient-length-000',
      );
      await probe(campaignId, `Bearer ${forged}`).expect(401);
    });

    it('answers 401 for another algorithm (HS512) even with the right secret', async () => {
      const unsigned = `${b64url({ alg: 'HS512', typ: 'JWT' })}.${b64url(decodeClaims(token))}`;
      const sig = createHmac('sha512', t.config.jwtSecret).update(unsigned).digest('base64url');
      await probe(campaignId, `Bearer ${unsigned}.${sig}`).expect(401);
    });

    it('answers 401 for tampered claims (another account) with the original signature', async () => {
      const [header, , signature] = token.split('.');
      const claims = { ...decodeClaims(token), acc: accountId + 1000 };
      await probe(campaignId, `Bearer ${header}.${b64url(claims)}.${signature}`).expect(401);
    });

    it('answers 401 for an expired token', async () => {
      const now = Math.floor(Date.now() / 1000);
      const expired = signJwt(
        { alg: 'HS256', typ: 'JWT' },
        { ...decodeClaims(token), iat: now - 1000, exp: now - 10 },
        t.config.jwtSecret,
      );
      const res = await probe(campaignId, `Bearer ${expired}`).expect(401);
      expect(res.body.message).toMatch(/expired/);
    });

    it('stops a token it has already accepted the moment the token expires', async () => {
      const now = Math.floor(Date.now() / 1000);
      const shortLived = signJwt(
        { alg: 'HS256', typ: 'JWT' },
        { ...decodeClaims(token), iat: now, exp: now + 2 },
        t.config.jwtSecret,
      );
      // Accepted twice: the second time from the verified-token memory, not a full check.
      await probe(campaignId, `Bearer ${shortLived}`).expect(202);
      await probe(campaignId, `Bearer ${shortLived}`).expect(202);
      await new Promise((resolve) => setTimeout(resolve, (now + 2) * 1000 - Date.now() + 50));
      const res = await probe(campaignId, `Bearer ${shortLived}`).expect(401);
      expect(res.body).toEqual({
        error: 'unauthorized',
        message: 'The bearer token has expired; exchange the API key again',
      });
    });

    it('answers 401 for a token with the wrong audience', async () => {
      const wrong = signJwt(
        { alg: 'HS256', typ: 'JWT' },
        { ...decodeClaims(token), aud: 'other' },
        t.config.jwtSecret,
      );
      await probe(campaignId, `Bearer ${wrong}`).expect(401);
    });

    it('answers 401 for a well-signed token naming a key that does not exist', async () => {
      const ghost = signJwt(
        { alg: 'HS256', typ: 'JWT' },
        { ...decodeClaims(token), sub: '2147483000' },
        t.config.jwtSecret,
      );
      await probe(campaignId, `Bearer ${ghost}`).expect(401);
      expect(apiKeyId).toBeGreaterThan(0);
    });
  });

  describe('revocation', () => {
    it('refuses the exchange of a key another process revoked, well within a CLI run', async () => {
      const caller = await t.given.caller();
      await t.http().post(TOKEN_PATH).send({ api_key: caller.apiKey }).expect(200);
      await t.db.query('UPDATE api_key SET revoked_at = now() WHERE id = $1', [caller.apiKeyId]);
      expect(ACTIVE_KEY_CACHE_TTL_MS).toBeLessThanOrEqual(500);
      await new Promise((resolve) => setTimeout(resolve, ACTIVE_KEY_CACHE_TTL_MS + 50));
      const res = await t.http().post(TOKEN_PATH).send({ api_key: caller.apiKey }).expect(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: 'The API key is not valid' });
    });

    it('stops tokens at once when revoked through the service', async () => {
      const caller = await t.given.caller();
      await probe(caller.campaignId, `Bearer ${caller.token}`).expect(202);
      await t.app
        .get((await import('../src/auth/api-keys.service')).ApiKeysService)
        .revoke(caller.apiKeyId);
      await probe(caller.campaignId, `Bearer ${caller.token}`).expect(401);
    });

    it('stops tokens within 30 seconds when another process revokes the key', async () => {
      const caller = await t.given.caller();
      await probe(caller.campaignId, `Bearer ${caller.token}`).expect(202);
      // Another process (the CLI) revokes: this process only sees the database.
      await t.db.query('UPDATE api_key SET revoked_at = now() WHERE id = $1', [caller.apiKeyId]);
      expect(KEY_ACCESS_CACHE_TTL_MS).toBeLessThanOrEqual(30_000);
      await new Promise((resolve) => setTimeout(resolve, KEY_ACCESS_CACHE_TTL_MS + 200));
      const res = await probe(caller.campaignId, `Bearer ${caller.token}`).expect(401);
      expect(res.body.error).toBe('unauthorized');
      const [{ count }] = await t.db.query(
        'SELECT count(*)::int AS count FROM lead WHERE campaign_id = $1',
        [caller.campaignId],
      );
      expect(count).toBe(1);
    });
  });
});
