import { startTestApp, type TestApp, type Caller } from './support/test-app';

describe('Webhook reads (docs/api.md#webhook-reads)', () => {
  let t: TestApp;
  let me: Caller;
  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    me = await t.given.caller();
  });
  afterAll(() => t.close());

  const get = (path: string, token = me.token) =>
    t.http().get(`/api/v1${path}`).set('Authorization', `Bearer ${token}`);

  describe('GET /webhooks/{campaign_id}/events', () => {
    it('lists the seven event types in spec order', async () => {
      const res = await get(`/webhooks/${me.campaignId}/events`).expect(200);
      expect(res.body).toEqual([
        'lead.created',
        'leads.bulk_created',
        'lead.status_changed',
        'lead.converted',
        'call.started',
        'call.completed',
        'form.submitted',
      ]);
    });

    it('requires a bearer token', async () => {
      const res = await t.http().get(`/api/v1/webhooks/${me.campaignId}/events`).expect(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    });
  });

  describe('GET /webhooks/{campaign_id}/endpoints', () => {
    it('lists the campaign’s endpoints by id with exactly the 2.7 fields and no secret', async () => {
      const caller = await t.given.caller();
      const second = await t.given.endpoint(
        caller.campaignId,
        'https://example.com/b',
        ['call.completed'],
        { enabled: false },
      );
      const first = await t.given.endpoint(
        caller.campaignId,
        'https://example.com/a',
        ['lead.created', 'leads.bulk_created'],
        {
          description: 'CRM',
        },
      );
      const other = await t.given.caller();
      await t.given.endpoint(other.campaignId, 'https://example.com/other', ['lead.created']);

      const res = await get(`/webhooks/${caller.campaignId}/endpoints`, caller.token).expect(200);
      expect(res.body).toEqual([
        {
          id: second.id,
          campaign_id: caller.campaignId,
          url: 'https://example.com/b',
          description: null,
          subscribed_events: ['call.completed'],
          is_enabled: false,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          last_delivery_is_successful: null,
        },
        {
          id: first.id,
          campaign_id: caller.campaignId,
          url: 'https://example.com/a',
          description: 'CRM',
          subscribed_events: ['lead.created', 'leads.bulk_created'],
          is_enabled: true,
          created_at: expect.any(String),
          last_delivery_is_successful: null,
        },
      ]);
      const raw = JSON.stringify(res.body);
      for (const secret of [first.secret, second.secret])
        expect(raw).not.toContain(secret.slice(6, 20));
      expect(raw).not.toMatch(/secret|whsec/i);
    });

    it('answers an empty list for a campaign without endpoints', async () => {
      const caller = await t.given.caller();
      expect(
        (await get(`/webhooks/${caller.campaignId}/endpoints`, caller.token).expect(200)).body,
      ).toEqual([]);
    });

    it('stores signing secrets only encrypted', async () => {
      const { id, secret } = await t.given.endpoint(me.campaignId, 'https://example.com/enc', [
        'lead.created',
      ]);
      const [row] = await t.db.query(
        'SELECT secret_encrypted FROM webhook_endpoint WHERE id = $1',
        [id],
      );
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(row.secret_encrypted).toMatch(/^v1:/);
      expect(row.secret_encrypted).not.toContain(secret.slice(6));
    });
  });

  describe('GET /webhooks/{campaign_id}/endpoints/{eid}/health', () => {
    it('reports nulls and zeros before any delivery', async () => {
      const caller = await t.given.caller();
      const { id } = await t.given.endpoint(caller.campaignId, 'https://example.com/h', [
        'lead.created',
      ]);
      const res = await get(
        `/webhooks/${caller.campaignId}/endpoints/${id}/health`,
        caller.token,
      ).expect(200);
      expect(res.body).toEqual({
        endpoint_id: id,
        url: 'https://example.com/h',
        is_enabled: true,
        total_deliveries: 0,
        successful_deliveries: 0,
        failed_deliveries: 0,
        success_rate: null,
        last_delivery_at: null,
        last_delivery_is_successful: null,
        avg_duration_ms: null,
      });
    });

    it('answers 404 for an endpoint of another campaign, even of the same account', async () => {
      const otherCampaign = await t.given.campaign(me.accountId);
      const { id } = await t.given.endpoint(otherCampaign, 'https://example.com/x', [
        'lead.created',
      ]);
      const res = await get(`/webhooks/${me.campaignId}/endpoints/${id}/health`).expect(404);
      expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
      await get(`/webhooks/${me.campaignId}/endpoints/2147483647/health`).expect(404);
      await get(`/webhooks/${me.campaignId}/endpoints/99999999999/health`).expect(404);
    });

    it('answers reads made together each for its own endpoint (they share one query)', async () => {
      const otherCampaign = await t.given.campaign(me.accountId);
      const mine = await t.given.endpoint(me.campaignId, 'https://example.com/mine', [
        'lead.created',
      ]);
      const theirs = await t.given.endpoint(otherCampaign, 'https://example.com/theirs', [
        'lead.created',
      ]);
      await t.db.query(
        'UPDATE webhook_endpoint SET total_deliveries = 7, successful_deliveries = 7 WHERE id = $1',
        [mine.id],
      );
      const paths = [mine.id, theirs.id, 2147483647].flatMap((id) =>
        Array.from({ length: 10 }, () => `/webhooks/${me.campaignId}/endpoints/${id}/health`),
      );
      const answers = await Promise.all(paths.map((path) => get(path)));
      answers.slice(0, 10).forEach((res) => {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          endpoint_id: mine.id,
          url: 'https://example.com/mine',
          total_deliveries: 7,
          success_rate: 1,
        });
      });
      answers.slice(10).forEach((res) => {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
      });
    });
  });

  describe('order of checks: 401 → path ids (400) → 403 → 404', () => {
    it.each(['abc', '0', '-1', '1.5', '01', '1e3'])(
      'answers 400 invalid_campaign_id for campaign_id %s',
      async (id) => {
        const res = await get(`/webhooks/${id}/endpoints`).expect(400);
        expect(res.body).toEqual({ error: 'invalid_campaign_id', message: expect.any(String) });
      },
    );

    it.each(['x', '0', '-2'])('answers 400 for eid %s, before campaign access', async (eid) => {
      const other = await t.given.caller();
      const res = await get(`/webhooks/${other.campaignId}/endpoints/${eid}/health`).expect(400);
      expect(res.body.error).toBe('invalid_campaign_id');
    });

    it('answers 401 before looking at path ids', async () => {
      await t.http().get('/api/v1/webhooks/abc/endpoints').expect(401);
    });

    it('answers 403 for another account’s campaign and for one that does not exist, before 404', async () => {
      const other = await t.given.caller();
      const { id } = await t.given.endpoint(other.campaignId, 'https://example.com/y', [
        'lead.created',
      ]);
      for (const path of [
        `/webhooks/${other.campaignId}/endpoints`,
        `/webhooks/${other.campaignId}/events`,
        `/webhooks/${other.campaignId}/endpoints/${id}/health`,
        `/webhooks/${other.campaignId}/endpoints/999999/health`,
        '/webhooks/2147483600/endpoints',
      ]) {
        const res = await get(path).expect(403);
        expect(res.body).toEqual({
          error: 'forbidden',
          message: 'This token may not use that campaign',
        });
      }
    });

    it('answers 404 for webhook operations the API does not expose', async () => {
      const { id } = await t.given.endpoint(me.campaignId, 'https://example.com/z', [
        'lead.created',
      ]);
      const post = await t
        .http()
        .post(`/api/v1/webhooks/${me.campaignId}/endpoints`)
        .set('Authorization', `Bearer ${me.token}`)
        .send({});
      expect(post.status).toBe(404);
      await t
        .http()
        .delete(`/api/v1/webhooks/${me.campaignId}/endpoints/${id}`)
        .set('Authorization', `Bearer ${me.token}`)
        .expect(404);
    });
  });
});
