/**
 * A NUL character in a dashboard request (docs/dashboard.md#requests-and-answers): PostgreSQL
 * cannot store one in `text` or `jsonb`, so a NUL that reached a query failed it, a 500 logged
 * with its stack. The sign-in's email, an API key's name and an endpoint's description were
 * such values; now every NUL of a dashboard request, in its query string or its JSON body, is
 * 422 naming where, and nothing is written.
 */
import { givenUser, signIn, SESSION, type GivenUser, type SignedIn } from './support/dashboard';
import { startTestApp, type TestApp } from './support/test-app';

const API = '/dashboard/api';

describe('NUL characters in dashboard requests (docs/dashboard.md#requests-and-answers)', () => {
  let t: TestApp;
  let user: GivenUser;
  let admin: SignedIn;
  let campaignId: number;
  let endpointId: number;

  const refused = (message: string) => ({
    status: 422,
    body: { error: 'validation_failed', message },
  });
  const answer = (res: { status: number; body: unknown }) => ({
    status: res.status,
    body: res.body,
  });
  const send = (method: 'post' | 'patch', path: string, body: object) =>
    t
      .http()
      [method](`${API}${path}`)
      .set({ Cookie: admin.cookie, 'X-CSRF-Token': admin.csrf })
      .send(body);

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false', RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
    user = await givenUser(t, 'admin');
    campaignId = await t.given.campaign(user.accountId);
    ({ id: endpointId } = await t.given.endpoint(campaignId, 'https://hooks.example.com/a', [
      'lead.created',
    ]));
    admin = await signIn(t, user);
  });
  afterAll(() => t.close());

  it('refuses a sign-in whose email or password holds a NUL: no session, no audit entry', async () => {
    const count = async () =>
      (
        await t.db.query(
          `SELECT (SELECT count(*)::int FROM dashboard_session) AS sessions,
                  (SELECT count(*)::int FROM audit_log_entry) AS entries`,
        )
      )[0] as { sessions: number; entries: number };
    const before = await count();
    for (const [body, message] of [
      [{ email: `${user.email}\u0000`, password: user.password }, 'email'],
      [{ email: user.email, password: `${user.password}\u0000` }, 'password'],
    ] as const) {
      const res = await t.http().post(SESSION).set('X-CSRF-Token', 'sign-in').send(body);
      expect(answer(res)).toEqual(refused(`${message} must not contain a NUL character`));
    }
    expect(await count()).toEqual(before);
  });

  it('refuses an API key whose name holds a NUL: no key is made', async () => {
    const res = await send('post', '/api-keys', { name: 'a\u0000b' });
    expect(answer(res)).toEqual(refused('name must not contain a NUL character'));
    expect(
      await t.db.query('SELECT count(*)::int AS n FROM api_key WHERE account_id = $1', [
        user.accountId,
      ]),
    ).toEqual([{ n: 0 }]);
  });

  it('refuses an endpoint whose description holds a NUL, made or changed: nothing is written', async () => {
    const made = await send('post', `/campaigns/${campaignId}/endpoints`, {
      url: 'https://hooks.example.com/b',
      events: ['lead.created'],
      description: 'x\u0000',
    });
    expect(answer(made)).toEqual(refused('description must not contain a NUL character'));
    const changed = await send('patch', `/endpoints/${endpointId}`, {
      description: 'y\u0000',
      events: ['lead.created', 'x\u0000'],
    });
    expect(answer(changed)).toEqual(
      refused(
        'description must not contain a NUL character; events[1] must not contain a NUL character',
      ),
    );
    expect(
      await t.db.query(
        'SELECT id, description FROM webhook_endpoint WHERE campaign_id = $1 ORDER BY id',
        [campaignId],
      ),
    ).toEqual([{ id: endpointId, description: null }]);
  });

  it('still takes the same requests without the NUL', async () => {
    const res = await send('post', '/api-keys', { name: 'ab' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('ab');
  });
});
