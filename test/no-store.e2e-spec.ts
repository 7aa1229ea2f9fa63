/**
 * Responses that carry a credential are never stored by a cache (docs/security.md#responses-never-stored):
 * the dashboard's sign-in and session (the CSRF token), a revealed signing secret, a new API key,
 * and the public API's token exchange (a bearer token) answer `Cache-Control: no-store`, as does
 * every other response of the dashboard API and of the token exchange, errors included. Each
 * test also checks the body and the rows the request wrote, so the header is on the real answer.
 */
import { createHash } from 'node:crypto';
import { givenUser, signIn, SESSION, type GivenUser } from './support/dashboard';
import { startTestApp, type TestApp } from './support/test-app';

const API = '/dashboard/api';
const TOKEN = '/api/v1/auth/api-key/token';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Responses that carry credentials are never stored (docs/security.md#responses-never-stored)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false', RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
  });
  afterAll(() => t.close());

  async function admin(): Promise<{ user: GivenUser; campaignId: number }> {
    const user = await givenUser(t, 'admin');
    return { user, campaignId: await t.given.campaign(user.accountId) };
  }

  it('the sign-in and GET /dashboard/api/session: the CSRF token, no-store', async () => {
    const { user } = await admin();
    const session = await signIn(t, user);
    expect(session.response.headers['cache-control']).toBe('no-store');
    expect(session.response.body).toEqual({
      user: {
        id: user.id,
        account_id: user.accountId,
        email: user.email,
        role: 'admin',
      },
      csrf_token: session.csrf,
    });
    const [row] = await t.db.query(
      'SELECT user_id, ended_at FROM dashboard_session WHERE token_hash = $1',
      [sha256(session.token)],
    );
    expect(row).toEqual({ user_id: user.id, ended_at: null });

    const me = await t.http().get(SESSION).set('Cookie', session.cookie).expect(200);
    expect(me.headers['cache-control']).toBe('no-store');
    expect(me.body.csrf_token).toBe(session.csrf);
  });

  it('revealing a signing secret: no-store', async () => {
    const { user, campaignId } = await admin();
    const { id, secret } = await t.given.endpoint(campaignId, 'https://hooks.example.com/a', [
      'lead.created',
    ]);
    const session = await signIn(t, user);
    const res = await t
      .http()
      .post(`${API}/endpoints/${id}/secret/reveal`)
      .set({ Cookie: session.cookie, 'X-CSRF-Token': session.csrf })
      .send({})
      .expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ secret });
    const audited = await t.db.query(
      "SELECT object_id FROM audit_log_entry WHERE account_id = $1 AND action = 'secret.reveal'",
      [user.accountId],
    );
    expect(audited).toEqual([{ object_id: String(id) }]);
  });

  it('creating an API key: no-store', async () => {
    const { user } = await admin();
    const session = await signIn(t, user);
    const res = await t
      .http()
      .post(`${API}/api-keys`)
      .set({ Cookie: session.cookie, 'X-CSRF-Token': session.csrf })
      .send({ name: 'cached nowhere' })
      .expect(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const key = res.body.api_key as string;
    expect(key).toMatch(/^capi_[A-Za-z0-9_-]{43}$/);
    const rows = await t.db.query(
      'SELECT id, name, key_prefix FROM api_key WHERE account_id = $1 AND key_hash = $2',
      [user.accountId, sha256(key)],
    );
    expect(rows).toEqual([
      { id: res.body.id, name: 'cached nowhere', key_prefix: key.slice(0, 12) },
    ]);
  });

  it('the public token exchange: no-store on the token and on each refusal', async () => {
    const accountId = await t.given.account();
    const { key } = await t.given.apiKey(accountId);
    const res = await t.http().post(TOKEN).send({ api_key: key }).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'bearer',
      expires_in: expect.any(Number),
    });
    const refusals: Array<
      [number, () => Promise<{ status: number; headers: object; body: object }>]
    > = [
      [
        401,
        () =>
          t
            .http()
            .post(TOKEN)
            .send({ api_key: `capi_${'A'.repeat(43)}` }),
      ],
      [400, () => t.http().post(TOKEN).send({})],
      [400, () => t.http().post(TOKEN).set('Content-Type', 'application/json').send('{')],
      [415, () => t.http().post(TOKEN).set('Content-Type', 'text/plain').send('x')],
    ];
    for (const [status, send] of refusals) {
      const refused = await send();
      expect({
        status: refused.status,
        cacheControl: (refused.headers as Record<string, string>)['cache-control'],
        error: (refused.body as { error?: string }).error,
      }).toEqual({ status, cacheControl: 'no-store', error: expect.any(String) });
    }
  });

  it('every dashboard API error: no-store (401, 403, 404, 415, 422, an unknown URL)', async () => {
    const { user } = await admin();
    const session = await signIn(t, user);
    const auth = { Cookie: session.cookie, 'X-CSRF-Token': session.csrf };
    const answers = [
      [401, await t.http().get(`${API}/campaigns`)],
      [403, await t.http().post(`${API}/api-keys`).set('Cookie', session.cookie).send({})],
      [404, await t.http().get(`${API}/endpoints/2147483000`).set(auth)],
      [
        415,
        await t
          .http()
          .post(`${API}/api-keys`)
          .set(auth)
          .set('Content-Type', 'text/plain')
          .send('x'),
      ],
      [422, await t.http().get(`${API}/campaigns?page=2`).set(auth)],
      [404, await t.http().get(`${API}/no-such-thing`).set(auth)],
      [403, await t.http().post(SESSION).send({ email: user.email, password: user.password })],
    ] as const;
    for (const [status, res] of answers) {
      expect({
        url: res.request.url,
        status: res.status,
        cacheControl: res.headers['cache-control'],
        body: res.body,
      }).toEqual({
        url: res.request.url,
        status,
        cacheControl: 'no-store',
        body: { error: expect.any(String), message: expect.any(String) },
      });
    }
    // None of those created a key.
    const keys = await t.db.query('SELECT count(*)::int AS n FROM api_key WHERE account_id = $1', [
      user.accountId,
    ]);
    expect(keys).toEqual([{ n: 0 }]);
  });

  it('leaves the public API’s other routes and the browser app’s pages to their own rules', async () => {
    const health = await t.http().get('/health/live');
    expect(health.headers['cache-control']).toBeUndefined();
    const page = await t.http().get('/dashboard/campaigns');
    expect(page.headers['cache-control']).not.toBe('no-store');
  });
});
