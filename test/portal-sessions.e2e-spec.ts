/**
 * The embeddable portal's server side (docs/dashboard.md#embedding-the-portal,
 * docs/security.md#embedded-portal): minting and revoking links with an API key, the one
 * exchange of a link, the check of every portal request, its campaigns and its role, and the
 * refusals, each with the database state it leaves.
 */
import { createHash } from 'node:crypto';
import { CampaignsService } from '../src/campaigns/campaigns.service';
import { givenUser, signIn } from './support/dashboard';
import { startTestApp, type Caller, type TestApp } from './support/test-app';

const MINT = '/api/v1/portal/sessions';
const EXCHANGE = '/dashboard/api/portal/exchange';
const HOST = 'https://app.example.com';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

describe('Embedded portal sessions (docs/dashboard.md#embedding-the-portal)', () => {
  let t: TestApp;
  let me: Caller;
  beforeAll(async () => {
    t = await startTestApp();
    me = await t.given.caller();
    await t.app.get(CampaignsService).setPortalOrigins(me.accountId, [HOST]);
  });
  afterAll(() => t.close());

  const mint = (token: string, body: Record<string, unknown>) =>
    t.http().post(MINT).set('Authorization', `Bearer ${token}`).send(body);

  const linksOf = async (accountId: number) =>
    (
      await t.db.query('SELECT count(*)::int AS n FROM portal_link WHERE account_id = $1', [
        accountId,
      ])
    )[0].n as number;

  /** Mints a link for `me` and splits its URL into link id and secret. */
  async function minted(body: Record<string, unknown> = {}) {
    const res = await mint(me.token, {
      role: 'admin',
      expires_in: 600,
      subject: { id: 'user_42', name: 'Ada' },
      ...body,
    }).expect(201);
    const url = new URL(res.body.url as string);
    return { id: res.body.id as string, secret: url.hash.slice(1), body: res.body, url };
  }

  /** Mints and exchanges a link; the session's token. */
  async function session(body: Record<string, unknown> = {}) {
    const link = await minted(body);
    const res = await t
      .http()
      .post(EXCHANGE)
      .set('X-CSRF-Token', 'sign-in')
      .send({ link_id: link.id, secret: link.secret })
      .expect(200);
    return { ...link, token: res.body.token as string, session: res.body.session };
  }

  const asPortal = (token: string) => ({
    get: (path: string) => t.http().get(path).set('Authorization', `Bearer ${token}`),
    post: (path: string, body: unknown) =>
      t
        .http()
        .post(path)
        .set('Authorization', `Bearer ${token}`)
        .send(body as object),
  });

  describe('minting', () => {
    it('answers 201 with the link id, a URL whose secret is only in the fragment, and the end; stores only the hash', async () => {
      const before = Date.now();
      const { id, secret, body, url } = await minted({ campaign_ids: [me.campaignId] });
      expect(Object.keys(body).sort()).toEqual(['expires_at', 'id', 'url']);
      expect(url.pathname).toBe(`/portal/${id}`);
      expect(url.search).toBe('');
      expect(secret).toMatch(/^cpl_[A-Za-z0-9_-]{43}$/);
      const expiresAt = new Date(body.expires_at as string).getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000 - 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
      const [row] = await t.db.query(
        `SELECT account_id, secret_hash, role, campaign_ids, subject_id, subject_name, pages,
                parent_origin, used_at, revoked_at, key_prefix
           FROM portal_link WHERE id = $1`,
        [id],
      );
      expect(row).toEqual({
        account_id: me.accountId,
        secret_hash: sha256(secret),
        role: 'admin',
        campaign_ids: [me.campaignId],
        subject_id: 'user_42',
        subject_name: 'Ada',
        pages: ['endpoints', 'deliveries'],
        parent_origin: HOST,
        used_at: null,
        revoked_at: null,
        key_prefix: me.apiKey.slice(0, row.key_prefix.length),
      });
      const [audit] = await t.db.query(
        `SELECT actor_type, actor_key_prefix, action, details::text AS details
           FROM audit_log_entry WHERE object_type = 'portal_link' AND object_id = $1`,
        [id],
      );
      expect(audit).toMatchObject({
        actor_type: 'api_key',
        actor_key_prefix: row.key_prefix,
        action: 'portal_link.create',
      });
      expect(audit.details).not.toContain(secret);
    });

    it("refuses a link for account A naming account B's campaign with 403, and writes nothing", async () => {
      const other = await t.given.caller();
      const before = await linksOf(me.accountId);
      const res = await mint(me.token, {
        campaign_ids: [other.campaignId],
        role: 'viewer',
        expires_in: 60,
        subject: { id: 'u1' },
      }).expect(403);
      expect(res.body).toEqual({
        error: 'forbidden',
        message: `This token may not use campaign ${other.campaignId}`,
      });
      expect(await linksOf(me.accountId)).toBe(before);
      expect(await linksOf(other.accountId)).toBe(0);
    });

    it("refuses a campaign of the account outside the key's campaign list with 403", async () => {
      const second = await t.given.campaign(me.accountId);
      const limited = await t.given.apiKey(me.accountId, [me.campaignId]);
      const token = await t.given.token(limited.key);
      const before = await linksOf(me.accountId);
      await mint(token, {
        campaign_ids: [second],
        role: 'viewer',
        expires_in: 60,
        subject: { id: 'u1' },
      }).expect(403);
      expect(await linksOf(me.accountId)).toBe(before);
      // Without campaign_ids, the link gets the key's own list.
      const res = await mint(token, { role: 'viewer', expires_in: 60, subject: { id: 'u1' } });
      expect(res.status).toBe(201);
      const [row] = await t.db.query('SELECT campaign_ids FROM portal_link WHERE id = $1', [
        res.body.id,
      ]);
      expect(row.campaign_ids).toEqual([me.campaignId]);
    });

    it.each([
      [{ expires_in: 3601 }, 'expires_in'],
      [{ expires_in: 0 }, 'expires_in'],
      [{ role: 'owner' }, 'role'],
      [{ subject: {} }, 'subject.id'],
      [{ theme: { primary_color: 'red' } }, 'theme.primary_color'],
      [{ theme: { logo_url: 'http://app.example.com/logo.png' } }, 'theme.logo_url'],
      [{ theme: { logo_url: 'javascript:alert(1)' } }, 'theme.logo_url'],
      [{ theme: { scheme: 'blue' } }, 'theme.scheme'],
      [{ theme: { css: 'body{}' } }, 'theme.css'],
      [{ pages: ['api-keys'] }, 'pages'],
      [{ parent_origin: 'https://evil.example.net' }, 'parent_origin'],
    ])('refuses %j with 422 naming %s, and writes nothing', async (change, field) => {
      const before = await linksOf(me.accountId);
      const res = await mint(me.token, {
        role: 'viewer',
        expires_in: 60,
        subject: { id: 'u1' },
        ...change,
      }).expect(422);
      expect(res.body).toEqual({
        error: 'validation_failed',
        message: expect.stringContaining(field),
      });
      expect(await linksOf(me.accountId)).toBe(before);
    });

    it('refuses a link for an account without portal origins (422): it could not be framed', async () => {
      const other = await t.given.caller();
      const res = await mint(other.token, {
        role: 'viewer',
        expires_in: 60,
        subject: { id: 'u1' },
      }).expect(422);
      expect(res.body.message).toContain('no portal origins');
      expect(await linksOf(other.accountId)).toBe(0);
    });

    it('refuses a mint without a bearer token (401)', async () => {
      await t
        .http()
        .post(MINT)
        .send({ role: 'viewer', expires_in: 60, subject: { id: 'u' } })
        .expect(401);
    });
  });

  describe('the exchange', () => {
    it('exchanges a link once for a session token kept nowhere but in the answer; the second time is 401', async () => {
      const link = await minted();
      const first = await t
        .http()
        .post(EXCHANGE)
        .set('X-CSRF-Token', 'sign-in')
        .send({ link_id: link.id, secret: link.secret })
        .expect(200);
      expect(first.body.token).toMatch(/^cps_[A-Za-z0-9_-]{43}$/);
      expect(first.headers['set-cookie']).toBeUndefined();
      expect(first.body.session).toMatchObject({
        link_id: link.id,
        role: 'admin',
        parent_origin: HOST,
        subject_id: 'user_42',
        pages: ['endpoints', 'deliveries'],
      });
      const second = await t
        .http()
        .post(EXCHANGE)
        .set('X-CSRF-Token', 'sign-in')
        .send({ link_id: link.id, secret: link.secret })
        .expect(401);
      expect(second.body).toEqual({
        error: 'portal_session_expired',
        message: expect.any(String),
      });
      const [row] = await t.db.query(
        'SELECT used_at, session_token_hash FROM portal_link WHERE id = $1',
        [link.id],
      );
      expect(row.used_at).not.toBeNull();
      expect(row.session_token_hash).toBe(sha256(first.body.token as string));
    });

    it('refuses an expired link (401) and leaves it unused', async () => {
      const link = await minted();
      await t.db.query(
        "UPDATE portal_link SET expires_at = now() - interval '1 second' WHERE id = $1",
        [link.id],
      );
      await t
        .http()
        .post(EXCHANGE)
        .set('X-CSRF-Token', 'sign-in')
        .send({ link_id: link.id, secret: link.secret })
        .expect(401);
      const [row] = await t.db.query('SELECT used_at FROM portal_link WHERE id = $1', [link.id]);
      expect(row.used_at).toBeNull();
    });

    it('refuses a wrong secret (401) and leaves the link usable', async () => {
      const link = await minted();
      const wrong = `cpl_${'A'.repeat(43)}`;
      await t
        .http()
        .post(EXCHANGE)
        .set('X-CSRF-Token', 'sign-in')
        .send({ link_id: link.id, secret: wrong })
        .expect(401);
      await t
        .http()
        .post(EXCHANGE)
        .set('X-CSRF-Token', 'sign-in')
        .send({ link_id: link.id, secret: link.secret })
        .expect(200);
    });

    it('refuses an exchange without X-CSRF-Token or from another origin (403)', async () => {
      const link = await minted();
      await t.http().post(EXCHANGE).send({ link_id: link.id, secret: link.secret }).expect(403);
      await t
        .http()
        .post(EXCHANGE)
        .set('X-CSRF-Token', 'sign-in')
        .set('Origin', HOST)
        .send({ link_id: link.id, secret: link.secret })
        .expect(403);
      const [row] = await t.db.query('SELECT used_at FROM portal_link WHERE id = $1', [link.id]);
      expect(row.used_at).toBeNull();
    });

    it('refuses the secret sent as a query parameter of the portal page (400), never serving the page', async () => {
      const link = await minted();
      const res = await t.http().get(`/portal/${link.id}?secret=${link.secret}`).expect(400);
      expect(res.body).toEqual({
        error: 'bad_request',
        message: expect.stringContaining('fragment'),
      });
      expect(res.headers['content-type']).toContain('application/json');
      const [row] = await t.db.query('SELECT used_at FROM portal_link WHERE id = $1', [link.id]);
      expect(row.used_at).toBeNull();
    });

    it('answers 404 for the page of a link that does not exist', async () => {
      await t.http().get('/portal/00000000-0000-4000-8000-000000000000').expect(404);
      await t.http().get('/portal/not-a-uuid').expect(404);
    });
  });

  describe('a portal session', () => {
    it('sees only its campaigns, and creates an endpoint recorded as portal:<subject> with the key prefix', async () => {
      const second = await t.given.campaign(me.accountId);
      const { token } = await session({ campaign_ids: [me.campaignId] });
      const portal = asPortal(token);
      const campaigns = await portal.get('/dashboard/api/campaigns').expect(200);
      expect(campaigns.body.map((c: { id: number }) => c.id)).toEqual([me.campaignId]);
      await portal.get(`/dashboard/api/campaigns/${second}/endpoints`).expect(404);
      const created = await portal
        .post(`/dashboard/api/campaigns/${me.campaignId}/endpoints`, {
          url: 'https://hooks.example.com/portal',
          events: ['lead.created'],
        })
        .expect(201);
      const [audit] = await t.db.query(
        `SELECT actor_type, actor_label, actor_key_prefix, actor_user_id, account_id
           FROM audit_log_entry WHERE action = 'endpoint.create' AND object_id = $1`,
        [String(created.body.endpoint.id)],
      );
      const [link] = await t.db.query(
        'SELECT key_prefix FROM portal_link WHERE session_token_hash = $1',
        [sha256(token)],
      );
      expect(audit).toEqual({
        actor_type: 'portal',
        actor_label: 'portal:user_42',
        actor_key_prefix: link.key_prefix,
        actor_user_id: null,
        account_id: me.accountId,
      });
      // The dashboard's audit page shows it.
      const admin = await givenUser(t, 'admin', me.accountId);
      const { cookie } = await signIn(t, admin);
      const log = await t
        .http()
        .get('/dashboard/api/audit-log?action=endpoint.create')
        .set('Cookie', cookie)
        .expect(200);
      expect(log.body.items[0].actor).toEqual({
        type: 'portal',
        user_id: null,
        email: null,
        label: 'portal:user_42',
        key_prefix: link.key_prefix,
      });
    });

    it("cannot reach another campaign's endpoint in the same account (404)", async () => {
      const second = await t.given.campaign(me.accountId);
      const { id: endpointId } = await t.given.endpoint(second, 'https://hooks.example.com/b', [
        'lead.created',
      ]);
      const { token } = await session({ campaign_ids: [me.campaignId] });
      await asPortal(token).get(`/dashboard/api/endpoints/${endpointId}`).expect(404);
    });

    it('a viewer may read but changes nothing (403) and writes nothing', async () => {
      const { id: endpointId } = await t.given.endpoint(
        me.campaignId,
        'https://hooks.example.com/v',
        ['lead.created'],
      );
      const { token } = await session({ role: 'viewer' });
      const portal = asPortal(token);
      await portal.get(`/dashboard/api/endpoints/${endpointId}`).expect(200);
      const count = async () =>
        (
          await t.db.query(
            'SELECT count(*)::int AS n FROM webhook_endpoint WHERE campaign_id = $1',
            [me.campaignId],
          )
        )[0].n as number;
      const before = await count();
      const refused = await portal
        .post(`/dashboard/api/campaigns/${me.campaignId}/endpoints`, {
          url: 'https://hooks.example.com/nope',
          events: ['lead.created'],
        })
        .expect(403);
      expect(refused.body).toEqual({ error: 'forbidden', message: expect.any(String) });
      await portal.post(`/dashboard/api/endpoints/${endpointId}/test`, {}).expect(403);
      await t
        .http()
        .delete(`/dashboard/api/endpoints/${endpointId}`)
        .set('Authorization', `Bearer ${token}`)
        .expect(403);
      expect(await count()).toBe(before);
    });

    describe('its pages, enforced by the server (docs/security.md#embedded-portal)', () => {
      const endpointsOf = async (campaignId: number) =>
        (
          await t.db.query('SELECT url FROM webhook_endpoint WHERE campaign_id = $1 ORDER BY id', [
            campaignId,
          ])
        ).map((row: { url: string }) => row.url);

      it('a session with pages [deliveries] cannot create, change or test an endpoint (403, nothing written), but reads its delivery log', async () => {
        const campaignId = await t.given.campaign(me.accountId);
        const { id: endpointId } = await t.given.endpoint(
          campaignId,
          'https://hooks.example.com/kept',
          ['lead.created'],
        );
        const { token, session: scope } = await session({ pages: ['deliveries'] });
        expect(scope.pages).toEqual(['deliveries']);
        const portal = asPortal(token);
        const refused = await portal
          .post(`/dashboard/api/campaigns/${campaignId}/endpoints`, {
            url: 'https://hooks.example.com/not-made',
            events: ['lead.created'],
          })
          .expect(403);
        expect(refused.body).toEqual({
          error: 'forbidden',
          message: 'This portal session does not include the endpoints page',
        });
        await t
          .http()
          .patch(`/dashboard/api/endpoints/${endpointId}`)
          .set('Authorization', `Bearer ${token}`)
          .send({ url: 'https://hooks.example.com/changed' })
          .expect(403);
        await t
          .http()
          .delete(`/dashboard/api/endpoints/${endpointId}`)
          .set('Authorization', `Bearer ${token}`)
          .expect(403);
        await portal.post(`/dashboard/api/endpoints/${endpointId}/test`, {}).expect(403);
        await portal.post(`/dashboard/api/endpoints/${endpointId}/secret/reveal`, {}).expect(403);
        expect(await endpointsOf(campaignId)).toEqual(['https://hooks.example.com/kept']);
        const audited = await t.db.query(
          `SELECT 1 FROM audit_log_entry WHERE object_id = $1 AND action LIKE 'endpoint.%'`,
          [String(endpointId)],
        );
        expect(audited).toEqual([]);
        // What the deliveries page reads to find its way, and the log itself, stay open.
        await portal.get('/dashboard/api/campaigns').expect(200);
        await portal.get(`/dashboard/api/campaigns/${campaignId}/endpoints`).expect(200);
        await portal.get(`/dashboard/api/endpoints/${endpointId}`).expect(200);
        await portal.get(`/dashboard/api/endpoints/${endpointId}/attempts`).expect(200);
        await portal.get(`/dashboard/api/endpoints/${endpointId}/stats`).expect(200);
      });

      it('a session with pages [endpoints] creates an endpoint, but cannot read the delivery log (403)', async () => {
        const campaignId = await t.given.campaign(me.accountId);
        const { token } = await session({ pages: ['endpoints'] });
        const portal = asPortal(token);
        const created = await portal
          .post(`/dashboard/api/campaigns/${campaignId}/endpoints`, {
            url: 'https://hooks.example.com/made',
            events: ['lead.created'],
          })
          .expect(201);
        expect(await endpointsOf(campaignId)).toEqual(['https://hooks.example.com/made']);
        const endpointId = created.body.endpoint.id as number;
        const refused = await portal
          .get(`/dashboard/api/endpoints/${endpointId}/attempts`)
          .expect(403);
        expect(refused.body).toEqual({
          error: 'forbidden',
          message: 'This portal session does not include the deliveries page',
        });
        await portal.get(`/dashboard/api/endpoints/${endpointId}/stats`).expect(403);
      });

      it('a session minted without pages has every section: it creates an endpoint and reads its log', async () => {
        const campaignId = await t.given.campaign(me.accountId);
        const { token, session: scope } = await session();
        expect(scope.pages).toEqual(['endpoints', 'deliveries']);
        const portal = asPortal(token);
        const created = await portal
          .post(`/dashboard/api/campaigns/${campaignId}/endpoints`, {
            url: 'https://hooks.example.com/all',
            events: ['lead.created'],
          })
          .expect(201);
        expect(await endpointsOf(campaignId)).toEqual(['https://hooks.example.com/all']);
        await portal
          .get(`/dashboard/api/endpoints/${created.body.endpoint.id as number}/attempts`)
          .expect(200);
      });
    });

    it('is refused at once when its link is revoked mid-use (next request 401 portal_session_expired)', async () => {
      const { id, token } = await session();
      const portal = asPortal(token);
      await portal.get('/dashboard/api/campaigns').expect(200);
      await t.http().delete(`${MINT}/${id}`).set('Authorization', `Bearer ${me.token}`).expect(204);
      const res = await portal.get('/dashboard/api/campaigns').expect(401);
      expect(res.body).toEqual({ error: 'portal_session_expired', message: expect.any(String) });
      const [audit] = await t.db.query(
        `SELECT actor_type FROM audit_log_entry WHERE action = 'portal_link.revoke' AND object_id = $1`,
        [id],
      );
      expect(audit.actor_type).toBe('api_key');
      // Revoking again is the same answer, recorded once.
      await t.http().delete(`${MINT}/${id}`).set('Authorization', `Bearer ${me.token}`).expect(204);
      const revokes = await t.db.query(
        `SELECT 1 FROM audit_log_entry WHERE action = 'portal_link.revoke' AND object_id = $1`,
        [id],
      );
      expect(revokes).toHaveLength(1);
    });

    it("cannot be revoked with another account's token (404), and stays usable", async () => {
      const other = await t.given.caller();
      const { id, token } = await session();
      await t
        .http()
        .delete(`${MINT}/${id}`)
        .set('Authorization', `Bearer ${other.token}`)
        .expect(404);
      await asPortal(token).get('/dashboard/api/campaigns').expect(200);
    });

    it('is refused once its link expires, on the next request (401)', async () => {
      const { id, token } = await session();
      await asPortal(token).get('/dashboard/api/campaigns').expect(200);
      await t.db.query(
        "UPDATE portal_link SET expires_at = now() - interval '1 second' WHERE id = $1",
        [id],
      );
      const res = await asPortal(token).get('/dashboard/api/campaigns').expect(401);
      expect(res.body.error).toBe('portal_session_expired');
    });

    it.each([
      ['GET', '/dashboard/api/api-keys'],
      ['GET', '/dashboard/api/audit-log'],
      ['GET', '/dashboard/api/session'],
      ['GET', '/dashboard/api/account/portal-origins'],
      ['PUT', '/dashboard/api/account/portal-origins'],
      ['GET', '/dashboard/api/account/notifications'],
      ['POST', '/dashboard/api/session'],
      ['POST', '/dashboard/api/api-keys'],
    ])('is refused on %s %s (403): not a portal route', async (method, path) => {
      const { token } = await session();
      const res = await t
        .http()
        [method.toLowerCase() as 'get' | 'put' | 'post'](path)
        .set('Authorization', `Bearer ${token}`)
        .set('X-CSRF-Token', 'sign-in')
        .send({ origins: ['https://evil.example.net'], name: 'x' })
        .expect(403);
      expect(res.body).toEqual({ error: 'forbidden', message: expect.any(String) });
      const [account] = await t.db.query('SELECT portal_origins FROM account WHERE id = $1', [
        me.accountId,
      ]);
      expect(account.portal_origins).toEqual([HOST]);
    });

    it('is never a cookie session, and a cookie session is never a bearer (401)', async () => {
      const { token } = await session();
      await t
        .http()
        .get('/dashboard/api/campaigns')
        .set('Cookie', `campaign_api_session=${token}`)
        .expect(401);
      const admin = await givenUser(t, 'admin', me.accountId);
      const signedIn = await signIn(t, admin);
      await t
        .http()
        .get('/dashboard/api/campaigns')
        .set('Authorization', `Bearer ${signedIn.token}`)
        .expect(401);
      // A bearer header wins over a cookie: a portal request never rides on a cookie session.
      await t
        .http()
        .get('/dashboard/api/api-keys')
        .set('Cookie', signedIn.cookie)
        .set('Authorization', `Bearer ${token}`)
        .expect(403);
    });
  });

  describe('portal origins', () => {
    it('are set by an admin, normalised and audited; a bad origin is 422 and changes nothing', async () => {
      const caller = await t.given.caller();
      const admin = await givenUser(t, 'admin', caller.accountId);
      const { cookie, csrf } = await signIn(t, admin);
      const put = (origins: unknown) =>
        t
          .http()
          .put('/dashboard/api/account/portal-origins')
          .set('Cookie', cookie)
          .set('X-CSRF-Token', csrf)
          .send({ origins });
      const ok = await put(['https://App.Example.com:443', 'http://127.0.0.2:8080']).expect(200);
      expect(ok.body).toEqual({ origins: ['https://app.example.com', 'http://127.0.0.2:8080'] });
      for (const bad of [
        ['http://app.example.com'],
        ['https://app.example.com/path'],
        ['https://*.example.com'],
        ['javascript:alert(1)'],
      ]) {
        const res = await put(bad).expect(422);
        expect(res.body.error).toBe('validation_failed');
      }
      const read = await t
        .http()
        .get('/dashboard/api/account/portal-origins')
        .set('Cookie', cookie)
        .expect(200);
      expect(read.body).toEqual({ origins: ['https://app.example.com', 'http://127.0.0.2:8080'] });
      const audit = await t.db.query(
        `SELECT actor_type FROM audit_log_entry
          WHERE account_id = $1 AND action = 'account.portal_origins_update'`,
        [caller.accountId],
      );
      expect(audit).toEqual([{ actor_type: 'user' }]);
    });

    it('are refused to a viewer (403)', async () => {
      const caller = await t.given.caller();
      const viewer = await givenUser(t, 'viewer', caller.accountId);
      const { cookie, csrf } = await signIn(t, viewer);
      await t
        .http()
        .put('/dashboard/api/account/portal-origins')
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf)
        .send({ origins: ['https://app.example.com'] })
        .expect(403);
    });
  });
});
