/**
 * The dashboard's resource routes, end to end (docs/dashboard.md#routes): campaigns, endpoints
 * (create, edit, delete, secret reveal and rotation, test events), the delivery log, attempt
 * detail, redelivery, event types, API keys and the audit log, through HTTP with a signed-in
 * session, checked against the public API, the webhooks a local receiver gets, the database
 * rows and the dashboard's OpenAPI document (every answer below is validated against it).
 * Access rules route by route are test/dashboard-access.e2e-spec.ts's.
 */
import { createHash } from 'node:crypto';
import type { OpenAPIObject } from '@nestjs/swagger';
import OpenAPIResponseValidator from 'openapi-response-validator';
import type request from 'supertest';
import { dashboardRoutes } from '../src/dashboard-kernel/dashboard-routes';
import { EVENT_EXAMPLES } from '../src/webhooks/event-examples.constants';
import { EVENT_TYPES } from '../src/webhooks/event-types.constants';
import { EVENT_DESCRIPTIONS, eventJsonSchema } from '../src/webhooks/event-schemas.constants';
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';

const API = '/dashboard/api';
const UPLOAD = '/api/v1/leads/upload';
const LOOPBACK = ['127.0.0.1', '::ffff:127.0.0.1', '::1'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A positive PostgreSQL `integer` that names nothing. */
const MISSING_ID = 2_147_483_000;

type Method = 'get' | 'post' | 'patch' | 'delete';

describe('Dashboard resources (docs/dashboard.md#routes)', () => {
  let t: TestApp;
  let doc: OpenAPIObject;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    // Failed deliveries are not retried within a test: a failure stays one attempt.
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h', RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
    doc = (await t.http().get(`${API}/docs-json`).expect(200)).body as OpenAPIObject;
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  /** The document's path template that `path` (without its query) is an instance of. */
  function template(path: string): string {
    const bare = path.split('?')[0];
    const found = Object.keys(doc.paths).find((candidate) =>
      new RegExp(`^${candidate.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare),
    );
    if (!found) throw new Error(`${bare} is not in the dashboard's OpenAPI document`);
    return found;
  }

  /** Asserts that a real answer is one the dashboard document allows (status and body). */
  function conforms(method: Method, path: string, res: request.Response): void {
    const operation = doc.paths[template(path)][method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not documented`);
    if (!Object.keys(operation.responses).includes(String(res.status))) {
      throw new Error(
        `${method.toUpperCase()} ${path} answered ${res.status}, not documented: ${JSON.stringify(res.body)}`,
      );
    }
    const errors = new OpenAPIResponseValidator({
      responses: operation.responses as never,
      components: doc.components as never,
    }).validateResponse(res.status, res.status === 204 ? undefined : res.body);
    if (errors) {
      throw new Error(
        `${method.toUpperCase()} ${path} ${res.status} does not match the document: ${JSON.stringify(errors.errors)}\nbody: ${JSON.stringify(res.body)}`,
      );
    }
  }

  /** The dashboard API as a signed-in user: every answer is checked against the document. */
  function as(session: SignedIn) {
    const send = async (method: Method, path: string, body?: object) => {
      let req = t.http()[method](`${API}${path}`).set('Cookie', session.cookie);
      if (method !== 'get') req = req.set('X-CSRF-Token', session.csrf);
      const res = await (method === 'post' || method === 'patch' ? req.send(body ?? {}) : req);
      conforms(method, `${API}${path}`, res);
      return res;
    };
    return {
      get: (path: string) => send('get', path),
      post: (path: string, body?: object) => send('post', path, body),
      patch: (path: string, body: object) => send('patch', path, body),
      delete: (path: string) => send('delete', path),
    };
  }
  type Dashboard = ReturnType<typeof as>;

  /** A customer: an account with a campaign and a bearer token (public API), an admin and a viewer. */
  interface Customer {
    caller: Caller;
    admin: GivenUser;
    dash: Dashboard;
    viewer: Dashboard;
  }

  async function customer(): Promise<Customer> {
    const caller = await t.given.caller();
    const admin = await givenUser(t, 'admin', caller.accountId);
    const viewer = await givenUser(t, 'viewer', caller.accountId);
    return {
      caller,
      admin,
      dash: as(await signIn(t, admin)),
      viewer: as(await signIn(t, viewer)),
    };
  }

  const publicEndpoints = async (caller: Caller) =>
    (
      await t
        .http()
        .get(`/api/v1/webhooks/${caller.campaignId}/endpoints`)
        .set('Authorization', `Bearer ${caller.token}`)
        .expect(200)
    ).body as Array<Record<string, unknown>>;

  const upload = (caller: Caller, leads: unknown[]) =>
    t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, leads))
      .expect(202);

  interface AuditRow {
    id: string;
    account_id: number | null;
    actor_type: string;
    actor_user_id: number | null;
    actor_email: string | null;
    ip: string | null;
    action: string;
    object_type: string | null;
    object_id: string | null;
    details: Record<string, unknown>;
  }

  /** The account's audit entries of `action`, oldest first. */
  const auditRows = async (accountId: number, action: string): Promise<AuditRow[]> =>
    t.db.query(
      `SELECT id, account_id, actor_type, actor_user_id, actor_email, host(ip) AS ip, action,
              object_type, object_id, details
         FROM audit_log_entry WHERE account_id = $1 AND action = $2 ORDER BY id`,
      [accountId, action],
    );

  /** Asserts the one entry of `action` is the admin's, from a loopback IP, about `object`. */
  async function expectAudited(
    c: Customer,
    action: string,
    object: { type: string; id: number },
    details: Record<string, unknown> = {},
  ): Promise<AuditRow> {
    const rows = await auditRows(c.caller.accountId, action);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row).toMatchObject({
      actor_type: 'user',
      actor_user_id: c.admin.id,
      actor_email: c.admin.email,
      object_type: object.type,
      object_id: String(object.id),
      details,
    });
    expect(LOOPBACK).toContain(row.ip);
    return row;
  }

  const body = { url: 'https://hooks.example.com/a', events: ['lead.created'] };

  describe('campaigns', () => {
    it('lists the account’s campaigns, oldest first, with their endpoint count', async () => {
      const c = await customer();
      const second = await t.given.campaign(c.caller.accountId, 'GB');
      await t.given.endpoint(c.caller.campaignId, 'https://hooks.example.com/1', ['lead.created']);
      await t.given.endpoint(c.caller.campaignId, 'https://hooks.example.com/2', ['lead.created']);
      const someoneElse = await customer();
      await t.given.endpoint(someoneElse.caller.campaignId, 'https://x.example.com', [
        'lead.created',
      ]);
      const rows: Array<{ id: number; name: string; created_at: Date }> = await t.db.query(
        'SELECT id, name, created_at FROM campaign WHERE account_id = $1 ORDER BY id',
        [c.caller.accountId],
      );
      const res = await c.viewer.get('/campaigns');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        {
          id: c.caller.campaignId,
          name: rows[0].name,
          default_region: 'US',
          created_at: rows[0].created_at.toISOString(),
          endpoint_count: 2,
        },
        {
          id: second,
          name: rows[1].name,
          default_region: 'GB',
          created_at: rows[1].created_at.toISOString(),
          endpoint_count: 0,
        },
      ]);
    });
  });

  describe('endpoints', () => {
    it('creates an endpoint that the public API lists at once; the secret is shown once, never recorded', async () => {
      const c = await customer();
      const res = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
        url: 'https://Hooks.Example.com:443/in',
        description: ' CRM sync ',
        events: ['lead.created', 'call.completed', 'lead.created'],
      });
      expect(res.status).toBe(201);
      const { endpoint, secret } = res.body as {
        endpoint: Record<string, unknown> & { id: number };
        secret: string;
      };
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
      expect(endpoint).toEqual({
        id: expect.any(Number),
        campaign_id: c.caller.campaignId,
        url: 'https://hooks.example.com/in',
        description: 'CRM sync',
        subscribed_events: ['lead.created', 'call.completed'],
        is_enabled: true,
        created_at: expect.stringMatching(ISO),
        last_delivery_is_successful: null,
        health: {
          total_deliveries: 0,
          successful_deliveries: 0,
          failed_deliveries: 0,
          success_rate: null,
          last_delivery_at: null,
          last_delivery_is_successful: null,
          avg_duration_ms: null,
        },
        previous_secret_expires_at: null,
        disabled_reason: null,
        disabled_at: null,
        last_disabled_at: null,
        last_disabled_reason: null,
        failing_since: null,
        failing_reason: null,
        auto_disable_at: null,
        signature_scheme: 'symmetric',
        public_key: null,
        previous_public_key: null,
        custom_headers: [],
        max_deliveries_per_second: null,
        max_in_flight: null,
        ordering: 'none',
        auto_recover: false,
        recovery_probe: null,
        filter: null,
      });
      const {
        health: _health,
        previous_secret_expires_at: _previous,
        disabled_reason: _reason,
        disabled_at: _at,
        last_disabled_at: _lastAt,
        last_disabled_reason: _lastReason,
        failing_since: _failingSince,
        failing_reason: _failingReason,
        auto_disable_at: _autoDisableAt,
        signature_scheme: _scheme,
        public_key: _publicKey,
        previous_public_key: _previousPublicKey,
        custom_headers: _customHeaders,
        max_deliveries_per_second: _maxPerSecond,
        max_in_flight: _maxInFlight,
        ordering: _ordering,
        auto_recover: _autoRecover,
        recovery_probe: _recoveryProbe,
        filter: _filter,
        ...listed
      } = endpoint;
      expect(await publicEndpoints(c.caller)).toEqual([listed]);
      const [row] = await t.db.query(
        'SELECT campaign_id, secret_encrypted FROM webhook_endpoint WHERE id = $1',
        [endpoint.id],
      );
      expect(row.campaign_id).toBe(c.caller.campaignId);
      expect(row.secret_encrypted).not.toContain(secret.slice(6));
      const entry = await expectAudited(
        c,
        'endpoint.create',
        { type: 'endpoint', id: endpoint.id },
        {
          campaign_id: c.caller.campaignId,
          url: 'https://hooks.example.com/in',
          events: ['lead.created', 'call.completed'],
          description: 'CRM sync',
          enabled: true,
        },
      );
      expect(JSON.stringify(entry)).not.toContain(secret.slice(6));
      // Created disabled when asked; a viewer sees both.
      const disabled = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
        ...body,
        enabled: false,
      });
      expect(disabled.body.endpoint).toMatchObject({
        is_enabled: false,
        disabled_reason: 'manual',
        disabled_at: expect.stringMatching(ISO),
      });
      expect((await c.viewer.get(`/campaigns/${c.caller.campaignId}/endpoints`)).body).toEqual([
        endpoint,
        disabled.body.endpoint,
      ]);
    });

    it('refuses a bad body with 422 naming each problem, and a bad or foreign campaign id, creating nothing', async () => {
      const c = await customer();
      const other = await customer();
      const create = (campaign: string | number, payload: object) =>
        c.dash.post(`/campaigns/${campaign}/endpoints`, payload);
      const problems: Array<[object, string]> = [
        [{ ...body, url: 'ftp://hooks.example.com' }, 'url must use http or https, got "ftp"'],
        [{ ...body, url: 'not a url' }, 'url must be an absolute http or https URL'],
        [{ ...body, events: [] }, 'events must name at least one event type'],
        [{ ...body, events: ['lead.deleted'] }, 'events has unknown event types: lead.deleted'],
        [{ ...body, url: 7 }, 'url must be a string'],
        [{ ...body, events: 'lead.created' }, 'events must be an array'],
        [{ ...body, enabled: 'yes' }, 'enabled must be a boolean value'],
        [{ ...body, enabled: null }, 'enabled must be a boolean value'],
        [{ ...body, description: 'x'.repeat(501) }, 'description must be at most 500 characters'],
        [{ ...body, secret: 'whsec_mine' }, 'secret is not a known field'],
        [{ events: ['lead.created'] }, 'url must be a string'],
      ];
      for (const [payload, message] of problems) {
        const res = await create(c.caller.campaignId, payload);
        expect({ payload, status: res.status, body: res.body }).toEqual({
          payload,
          status: 422,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
      for (const bad of ['abc', '0', '-1', '01', '1.5', '1e3', ' 1']) {
        const res = await create(encodeURIComponent(bad), body);
        expect({ bad, status: res.status, body: res.body }).toEqual({
          bad,
          status: 400,
          body: { error: 'bad_request', message: 'campaign_id must be a positive integer' },
        });
      }
      for (const id of [MISSING_ID, other.caller.campaignId, 99_999_999_999]) {
        // Another account's campaign is not found, whatever the body (a bad one too).
        for (const payload of [body, { url: 5 }]) {
          const res = await create(id, payload);
          expect({ status: res.status, body: res.body }).toEqual({
            status: 404,
            body: { error: 'not_found', message: `campaign ${id} does not exist` },
          });
        }
        expect((await c.dash.get(`/campaigns/${id}/endpoints`)).body.message).toBe(
          `campaign ${id} does not exist`,
        );
      }
      const [{ n }] = await t.db.query(
        'SELECT count(*)::int AS n FROM webhook_endpoint WHERE campaign_id = ANY($1)',
        [[c.caller.campaignId, other.caller.campaignId]],
      );
      expect(n).toBe(0);
      expect(await auditRows(c.caller.accountId, 'endpoint.create')).toEqual([]);
    });

    it('reads, edits and deletes an endpoint, as the public API then shows', async () => {
      const c = await customer();
      const { id } = await t.given.endpoint(
        c.caller.campaignId,
        'https://hooks.example.com/a',
        ['lead.created'],
        { description: 'first' },
      );
      const read = await c.viewer.get(`/endpoints/${id}`);
      expect(read.body).toMatchObject({
        id,
        url: 'https://hooks.example.com/a',
        description: 'first',
      });

      const changed = await c.dash.patch(`/endpoints/${id}`, {
        url: 'https://hooks.example.com/b',
        events: ['form.submitted', 'lead.converted'],
        description: null,
        enabled: false,
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({
        ...read.body,
        url: 'https://hooks.example.com/b',
        subscribed_events: ['form.submitted', 'lead.converted'],
        description: null,
        is_enabled: false,
        disabled_reason: 'manual',
        disabled_at: expect.stringMatching(ISO),
        last_disabled_reason: 'manual',
        last_disabled_at: changed.body.disabled_at,
      });
      const [disabledRow] = await t.db.query(
        'SELECT disabled_reason, disabled_at FROM webhook_endpoint WHERE id = $1',
        [id],
      );
      expect(disabledRow.disabled_reason).toBe('manual');
      expect(disabledRow.disabled_at.toISOString()).toBe(changed.body.disabled_at);
      expect((await c.dash.get(`/endpoints/${id}`)).body).toEqual(changed.body);
      expect(await publicEndpoints(c.caller)).toEqual([
        expect.objectContaining({
          id,
          url: 'https://hooks.example.com/b',
          subscribed_events: ['form.submitted', 'lead.converted'],
          description: null,
          is_enabled: false,
        }),
      ]);
      await expectAudited(
        c,
        'endpoint.update',
        { type: 'endpoint', id },
        {
          changes: {
            url: 'https://hooks.example.com/b',
            events: ['form.submitted', 'lead.converted'],
            description: null,
            enabled: false,
          },
        },
      );
      // One field at a time; nothing to change, a null URL or a bad value is 422 and changes nothing.
      // Enabling clears why and since when it was disabled, and keeps them as the last ones.
      expect((await c.dash.patch(`/endpoints/${id}`, { enabled: true })).body).toMatchObject({
        is_enabled: true,
        disabled_reason: null,
        disabled_at: null,
        last_disabled_reason: 'manual',
        last_disabled_at: changed.body.disabled_at,
      });
      expect(
        await t.db.query(
          `SELECT disabled_reason, disabled_at, last_disabled_reason, last_disabled_at
             FROM webhook_endpoint WHERE id = $1`,
          [id],
        ),
      ).toEqual([
        {
          disabled_reason: null,
          disabled_at: null,
          last_disabled_reason: 'manual',
          last_disabled_at: new Date(changed.body.disabled_at as string),
        },
      ]);
      for (const [payload, message] of [
        [
          {},
          'nothing to change: give url, description, events, enabled, headers, max_deliveries_per_second, max_in_flight, ordering, auto_recover or filter',
        ],
        [{ url: null }, 'url must be a string'],
        [{ events: null }, 'events must be an array'],
        [{ events: ['nope'] }, 'events has unknown event types: nope'],
        [{ is_enabled: false }, 'is_enabled is not a known field'],
      ] as Array<[object, string]>) {
        const res = await c.dash.patch(`/endpoints/${id}`, payload);
        expect({ status: res.status, body: res.body }).toEqual({
          status: 422,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
      expect((await c.dash.get(`/endpoints/${id}`)).body.url).toBe('https://hooks.example.com/b');

      // Deleted (with its deliveries and attempts); then not found, like any missing id.
      const deleted = await c.dash.delete(`/endpoints/${id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect(await publicEndpoints(c.caller)).toEqual([]);
      const [{ n }] = await t.db.query(
        'SELECT count(*)::int AS n FROM webhook_endpoint WHERE id = $1',
        [id],
      );
      expect(n).toBe(0);
      await expectAudited(
        c,
        'endpoint.delete',
        { type: 'endpoint', id },
        { campaign_id: c.caller.campaignId, url: 'https://hooks.example.com/b' },
      );
      for (const res of [
        await c.dash.get(`/endpoints/${id}`),
        await c.dash.delete(`/endpoints/${id}`),
        await c.dash.patch(`/endpoints/${id}`, { enabled: true }),
      ]) {
        expect(res.body).toEqual({
          error: 'not_found',
          message: `webhook endpoint ${id} does not exist`,
        });
      }
      expect((await c.dash.get('/endpoints/0')).body).toEqual({
        error: 'bad_request',
        message: 'endpoint_id must be a positive integer',
      });
    });

    it('reveals the secret to an admin, recording it without the secret', async () => {
      const c = await customer();
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, body);
      const { id } = created.body.endpoint as { id: number };
      const res = await c.dash.post(`/endpoints/${id}/secret/reveal`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ secret: created.body.secret });
      const entry = await expectAudited(c, 'secret.reveal', { type: 'endpoint', id }, {});
      expect(entry.details).toEqual({});
      const all = await t.db.query('SELECT * FROM audit_log_entry WHERE account_id = $1', [
        c.caller.accountId,
      ]);
      expect(JSON.stringify(all)).not.toContain(String(created.body.secret).slice(6));
      expect((await c.viewer.post(`/endpoints/${id}/secret/reveal`)).status).toBe(403);
    });

    it('rotates the secret: the previous one stays valid 24 hours, and a delivery verifies with both', async () => {
      const c = await customer();
      const r = await receiver();
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
        url: r.url,
        events: ['leads.bulk_created'],
      });
      const { id } = created.body.endpoint as { id: number };
      const before = Date.now();
      const res = await c.dash.post(`/endpoints/${id}/secret/rotate`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([
        'previous_secret_expires_at',
        'public_key',
        'secret',
        'signature_scheme',
      ]);
      expect(res.body).toMatchObject({ signature_scheme: 'symmetric', public_key: null });
      const { secret, previous_secret_expires_at: expiresAt } = res.body as {
        secret: string;
        previous_secret_expires_at: string;
      };
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(created.body.secret);
      expect(expiresAt).toMatch(ISO);
      const day = 24 * 60 * 60 * 1000;
      expect(Date.parse(expiresAt)).toBeGreaterThanOrEqual(before + day - 1000);
      expect(Date.parse(expiresAt)).toBeLessThanOrEqual(Date.now() + day);
      expect((await c.viewer.get(`/endpoints/${id}`)).body.previous_secret_expires_at).toBe(
        expiresAt,
      );
      expect((await c.dash.post(`/endpoints/${id}/secret/reveal`)).body.secret).toBe(secret);
      const entry = await expectAudited(
        c,
        'secret.rotate',
        { type: 'endpoint', id },
        { previous_secret_expires_at: expiresAt },
      );
      expect(JSON.stringify(entry)).not.toContain(secret.slice(6));

      await upload(c.caller, [{ phone: '+14155550100' }]);
      const [webhook] = await r.waitFor(1);
      expect(String(webhook.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verifyWebhook(created.body.secret as string, webhook).type).toBe('leads.bulk_created');
      expect(verifyWebhook(secret, webhook).type).toBe('leads.bulk_created');
    });
  });

  describe('test events', () => {
    it('a test event answered 410 Gone disables the endpoint: the endpoint and the audit log say so', async () => {
      const c = await customer();
      const r = await receiver();
      r.behaviour = { status: 410 };
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
        url: r.url,
        events: ['lead.created'],
      });
      const { id } = created.body.endpoint as { id: number };
      const sent = await c.dash.post(`/endpoints/${id}/test`, { event_type: 'lead.created' });
      expect(sent.body).toMatchObject({ status_code: 410, success: false, delivery_id: null });
      const read = await c.viewer.get(`/endpoints/${id}`);
      expect(read.body).toMatchObject({
        is_enabled: false,
        disabled_reason: 'gone',
        disabled_at: expect.stringMatching(ISO),
      });
      const [row] = await t.db.query(
        'SELECT is_enabled, disabled_reason, disabled_at FROM webhook_endpoint WHERE id = $1',
        [id],
      );
      expect(row).toEqual({
        is_enabled: false,
        disabled_reason: 'gone',
        disabled_at: new Date(read.body.disabled_at),
      });
      // Newest first: the user's test, then (recorded during it) the service's disabling.
      const log = await c.viewer.get('/audit-log');
      expect(log.body.items[0]).toMatchObject({ action: 'endpoint.test' });
      expect(log.body.items[1]).toMatchObject({
        actor: { type: 'system', user_id: null, email: null },
        ip: null,
        action: 'endpoint.disable',
        object_id: String(id),
        details: expect.objectContaining({ reason: 'gone', attempt_id: sent.body.id }),
      });
      // Enabling it again (an admin) clears the reason.
      const enabled = await c.dash.patch(`/endpoints/${id}`, { enabled: true });
      expect(enabled.body).toMatchObject({
        is_enabled: true,
        disabled_reason: null,
        disabled_at: null,
      });
    });

    it('sends a ping and shows the response status, duration and excerpt; it counts in health', async () => {
      const c = await customer();
      const r = await receiver();
      r.behaviour = { status: 201, body: 'pong from the receiver' };
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
        url: r.url,
        events: ['lead.created'],
        enabled: false,
      });
      const { id } = created.body.endpoint as { id: number };
      const res = await c.dash.post(`/endpoints/${id}/test`, {});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        delivery_id: null,
        endpoint_id: id,
        webhook_id: expect.stringMatching(/^ping_[0-9a-f-]{36}$/),
        event_type: null,
        attempted_at: expect.stringMatching(ISO),
        duration_ms: expect.any(Number),
        status_code: 201,
        success: true,
        error: null,
        response_excerpt: 'pong from the receiver',
      });
      const [ping] = await r.waitFor(1);
      expect(ping.headers['webhook-id']).toBe(res.body.webhook_id);
      expect(verifyWebhook(created.body.secret as string, ping)).toEqual({
        type: 'ping',
        timestamp: expect.stringMatching(ISO),
        data: { endpoint_id: id },
      });
      expect((await c.dash.get(`/endpoints/${id}`)).body.health).toMatchObject({
        total_deliveries: 1,
        successful_deliveries: 1,
        last_delivery_is_successful: true,
      });
      await expectAudited(
        c,
        'endpoint.test',
        { type: 'endpoint', id },
        {
          event_type: 'ping',
          attempt_id: res.body.id,
          webhook_id: res.body.webhook_id,
          success: true,
          status_code: 201,
        },
      );
    });

    it('sends an example of an event type, reporting a failed answer as a failed attempt', async () => {
      const c = await customer();
      const r = await receiver();
      r.behaviour = { status: 500, body: 'x'.repeat(3000) };
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
        url: r.url,
        events: ['lead.created'],
      });
      const { id } = created.body.endpoint as { id: number };
      const res = await c.dash.post(`/endpoints/${id}/test`, { event_type: 'call.completed' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        endpoint_id: id,
        delivery_id: null,
        webhook_id: expect.stringMatching(/^test_/),
        event_type: 'call.completed',
        status_code: 500,
        success: false,
        error: expect.any(String),
      });
      expect(Buffer.byteLength(res.body.response_excerpt as string)).toBeLessThanOrEqual(1024);
      const [sent] = await r.waitFor(1);
      expect(verifyWebhook(created.body.secret as string, sent)).toEqual({
        type: 'call.completed',
        timestamp: expect.stringMatching(ISO),
        data: EVENT_EXAMPLES['call.completed'],
      });
      for (const [payload, message] of [
        [{ event_type: 'lead.deleted' }, 'event_type must be ping or one of'],
        [{ event_type: 7 }, 'event_type must be a string'],
        [{ event: 'ping' }, 'event is not a known field'],
      ] as Array<[object, string]>) {
        const refused = await c.dash.post(`/endpoints/${id}/test`, payload);
        expect({ status: refused.status, body: refused.body }).toEqual({
          status: 422,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
      expect(r.received).toHaveLength(1);
    });
  });

  describe('the delivery log, attempt detail and redelivery', () => {
    let c: Customer;
    let r: WebhookReceiver;
    let id: number;
    let secret: string;

    beforeAll(async () => {
      c = await customer();
      r = await receiver();
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
        url: r.url,
        events: ['lead.created', 'leads.bulk_created'],
      });
      ({ id } = created.body.endpoint as { id: number });
      secret = created.body.secret as string;
      // A real upload through the public API: 2 × lead.created and 1 × leads.bulk_created.
      await upload(c.caller, [{ phone: '+14155550100' }, { phone: '+14155550101' }]);
      await eventually(async () => {
        const [{ n }] = await t.db.query(
          `SELECT count(*)::int AS n FROM webhook_delivery WHERE endpoint_id = $1 AND status = 'succeeded'`,
          [id],
        );
        expect(n).toBe(3);
      });
      // Then a ping the receiver fails.
      r.behaviour = { status: 503, body: 'down for maintenance' };
      await c.dash.post(`/endpoints/${id}/test`, {});
      r.behaviour = { status: 204 };
    });

    const log = async (query = '') => c.viewer.get(`/endpoints/${id}/attempts${query}`);

    it('lists the attempts newest first, as the database holds them', async () => {
      const res = await log();
      expect(res.status).toBe(200);
      expect(res.body.next_cursor).toBeNull();
      const rows: Array<{ id: string }> = await t.db.query(
        `SELECT id FROM webhook_delivery_attempt WHERE endpoint_id = $1 ORDER BY attempted_at DESC, id DESC`,
        [id],
      );
      expect(res.body.items.map((item: { id: number }) => item.id)).toEqual(
        rows.map((row) => Number(row.id)),
      );
      const [ping, ...scheduled] = res.body.items as Array<Record<string, unknown>>;
      expect(ping).toMatchObject({ event_type: null, status_code: 503, success: false });
      expect(scheduled.map((item) => item.event_type).sort()).toEqual([
        'lead.created',
        'lead.created',
        'leads.bulk_created',
      ]);
      for (const item of scheduled) {
        expect(item).toEqual({
          id: expect.any(Number),
          delivery_id: expect.any(Number),
          endpoint_id: id,
          webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          event_type: expect.any(String),
          attempted_at: expect.stringMatching(ISO),
          duration_ms: expect.any(Number),
          status_code: 204,
          success: true,
          error: null,
        });
      }
    });

    it('filters by outcome, event type and time, and pages by cursor', async () => {
      const all = (await log()).body.items as Array<{ id: number; attempted_at: string }>;
      const ids = (res: request.Response) => res.body.items.map((item: { id: number }) => item.id);
      expect(ids(await log('?outcome=failed'))).toEqual([all[0].id]);
      expect(ids(await log('?outcome=succeeded'))).toEqual(all.slice(1).map((item) => item.id));
      expect((await log('?event_type=lead.created')).body.items).toHaveLength(2);
      expect(ids(await log('?event_type=ping'))).toEqual([all[0].id]);
      expect((await log('?event_type=form.submitted')).body.items).toEqual([]);
      const oldest = all[all.length - 1].attempted_at;
      expect(ids(await log(`?to=${encodeURIComponent(oldest)}`))).toEqual([]);
      expect(ids(await log(`?from=${encodeURIComponent(all[0].attempted_at)}`))).toEqual([
        all[0].id,
      ]);
      const paged: number[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await log(query);
        expect(page.body.items.length).toBeLessThanOrEqual(1);
        paged.push(...ids(page));
        cursor = page.body.next_cursor as string | null;
      } while (cursor !== null && paged.length < 10);
      expect(paged).toEqual(all.map((item) => item.id));
      for (const [query, message] of [
        ['?outcome=maybe', 'outcome must be succeeded or failed'],
        ['?event_type=lead', 'event_type must be ping or one of'],
        ['?from=yesterday', 'from must be an ISO 8601 date-time with a time zone'],
        ['?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'to must be later than from'],
        ['?limit=0', 'limit must be an integer from 1 to 100'],
        ['?limit=101', 'limit must be an integer from 1 to 100'],
        ['?cursor=nope', 'cursor is not a cursor of this log'],
        ['?outcome=failed&outcome=succeeded', 'outcome must be a string'],
        ['?page=2', 'page is not a known field'],
      ]) {
        const res = await log(query);
        expect({ query, status: res.status, body: res.body }).toEqual({
          query,
          status: 422,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
    });

    it('shows one attempt with the request as sent, the signature truncated', async () => {
      const items = (await log('?event_type=lead.created')).body.items as Array<{
        id: number;
        webhook_id: string;
      }>;
      const res = await c.dash.get(`/attempts/${items[0].id}`);
      expect(res.status).toBe(200);
      const received = r.received.find((w) => w.headers['webhook-id'] === items[0].webhook_id)!;
      expect(res.body).toEqual({
        ...items[0],
        response_excerpt: null,
        response_headers: expect.objectContaining({ date: expect.any(String) }),
        request: {
          method: 'POST',
          transformation_version: null,
          url: r.url,
          headers: {
            'content-type': 'application/json',
            'user-agent': expect.any(String),
            'webhook-id': items[0].webhook_id,
            'webhook-timestamp': received.headers['webhook-timestamp'],
            'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/=]{12}…$/),
          },
          body: received.body,
        },
        delivery: { status: 'succeeded', attempt_count: 1, next_attempt_at: null },
      });
      expect(Object.keys(res.body.request.headers)).toEqual([
        'content-type',
        'user-agent',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      expect(String(received.headers['webhook-signature'])).toContain(
        (res.body.request.headers['webhook-signature'] as string).slice(0, -1),
      );
      expect(verifyWebhook(secret, received).type).toBe('lead.created');
      // A viewer reads the same request with the lead's phone masked (docs/privacy.md).
      const sent = JSON.parse(received.body) as { data: { phone: string } };
      const asViewer = await c.viewer.get(`/attempts/${items[0].id}`);
      expect(sent.data.phone).toBe('+14155550101');
      expect(JSON.parse(asViewer.body.request.body as string)).toEqual({
        ...sent,
        data: { ...sent.data, phone: '+1 415 ••• ••01' },
      });
      // The failed ping: its own body and the start of the response.
      const ping = (await log('?event_type=ping')).body.items[0] as { id: number };
      const detail = await c.viewer.get(`/attempts/${ping.id}`);
      expect(detail.body.response_excerpt).toBe('down for maintenance');
      expect(JSON.parse(detail.body.request.body as string)).toEqual({
        type: 'ping',
        timestamp: expect.stringMatching(ISO),
        data: { endpoint_id: id },
      });
      for (const [path, status, message] of [
        [`/attempts/${MISSING_ID}`, 404, `attempt ${MISSING_ID} does not exist`],
        ['/attempts/x', 400, 'attempt_id must be a positive integer'],
      ] as Array<[string, number, string]>) {
        const refused = await c.viewer.get(path);
        expect({ status: refused.status, message: refused.body.message }).toEqual({
          status,
          message,
        });
      }
    });

    it('redelivers a delivery now with the same webhook-id, recording it', async () => {
      const [item] = (await log('?event_type=leads.bulk_created')).body.items as Array<{
        delivery_id: number;
        webhook_id: string;
      }>;
      const before = r.received.length;
      const res = await c.dash.post(`/deliveries/${item.delivery_id}/redeliver`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        delivery_id: item.delivery_id,
        endpoint_id: id,
        webhook_id: item.webhook_id,
        event_type: 'leads.bulk_created',
        status_code: 204,
        success: true,
        response_excerpt: null,
      });
      const received = await r.waitFor(before + 1);
      const again = received[before];
      expect(again.headers['webhook-id']).toBe(item.webhook_id);
      expect(verifyWebhook(secret, again).type).toBe('leads.bulk_created');
      expect((await log()).body.items[0]).toMatchObject({ id: res.body.id });
      await expectAudited(
        c,
        'delivery.redeliver',
        { type: 'delivery', id: item.delivery_id },
        {
          endpoint_id: id,
          attempt_id: res.body.id,
          webhook_id: item.webhook_id,
          success: true,
          status_code: 204,
        },
      );
      const missing = await c.dash.post(`/deliveries/${MISSING_ID}/redeliver`);
      expect(missing.body).toEqual({
        error: 'not_found',
        message: `delivery ${MISSING_ID} does not exist`,
      });
      expect((await c.viewer.post(`/deliveries/${item.delivery_id}/redeliver`)).status).toBe(403);
    });
  });

  describe('event types', () => {
    it('lists the seven types in order, each with its description, example payload and JSON Schema', async () => {
      const c = await customer();
      const res = await c.viewer.get('/event-types');
      expect(res.body).toEqual(
        EVENT_TYPES.map((type) => ({
          type,
          description: EVENT_DESCRIPTIONS[type],
          example: EVENT_EXAMPLES[type],
          schema: eventJsonSchema(type),
        })),
      );
      expect(res.body[0].schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    });
  });

  describe('API keys', () => {
    it('creates a key shown once and stored as a hash, lists it, and revokes it: its token stops at once', async () => {
      const c = await customer();
      const second = await t.given.campaign(c.caller.accountId);
      const created = await c.dash.post('/api-keys', {
        name: ' CRM import ',
        campaign_ids: [second],
      });
      expect(created.status).toBe(201);
      const key = created.body.api_key as string;
      expect(key).toMatch(/^capi_[A-Za-z0-9_-]{43}$/);
      const listedKey = {
        id: expect.any(Number),
        key_prefix: key.slice(0, 12),
        account_id: c.caller.accountId,
        name: 'CRM import',
        campaign_ids: [second],
        created_at: expect.stringMatching(ISO),
        revoked_at: null,
        last_used_at: null,
      };
      expect(created.body).toEqual({ ...listedKey, api_key: key });
      const id = created.body.id as number;
      const [row] = await t.db.query('SELECT * FROM api_key WHERE id = $1', [id]);
      expect(row.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(key);
      const list = await c.viewer.get('/api-keys');
      expect(list.body).toEqual([
        expect.objectContaining({ id: c.caller.apiKeyId, revoked_at: null }),
        listedKey,
      ]);
      expect(JSON.stringify(list.body)).not.toContain(key);
      await expectAudited(
        c,
        'api_key.create',
        { type: 'api_key', id },
        { name: 'CRM import', key_prefix: key.slice(0, 12), campaign_ids: [second] },
      );

      // The key works, for its campaign only.
      const token = await t.given.token(key);
      const probe = (campaignId: number) =>
        t
          .http()
          .get(`/api/v1/webhooks/${campaignId}/events`)
          .set('Authorization', `Bearer ${token}`);
      await probe(second).expect(200);
      await probe(c.caller.campaignId).expect(403);

      const revoked = await c.dash.post(`/api-keys/${id}/revoke`);
      expect(revoked.body).toEqual({ id, revoked_at: expect.stringMatching(ISO) });
      await probe(second).expect(401);
      await t.http().post('/api/v1/auth/api-key/token').send({ api_key: key }).expect(401);
      expect((await c.viewer.get('/api-keys')).body[1]).toMatchObject({
        id,
        revoked_at: revoked.body.revoked_at,
      });
      await expectAudited(c, 'api_key.revoke', { type: 'api_key', id }, {});
      // Revoking again keeps the first time.
      expect((await c.dash.post(`/api-keys/${id}/revoke`)).body).toEqual(revoked.body);
      const entries = await t.db.query('SELECT * FROM audit_log_entry WHERE account_id = $1', [
        c.caller.accountId,
      ]);
      expect(JSON.stringify(entries)).not.toContain(key);
    });

    it('refuses campaigns of another account, an empty list, bad names and foreign keys', async () => {
      const c = await customer();
      const other = await customer();
      for (const [payload, message] of [
        [
          { campaign_ids: [other.caller.campaignId] },
          'campaign_ids must all be campaigns of your account',
        ],
        [{ campaign_ids: [MISSING_ID] }, 'campaign_ids must all be campaigns of your account'],
        [{ campaign_ids: [] }, 'campaign_ids must name at least one campaign'],
        [{ campaign_ids: ['1'] }, 'campaign_ids must be an integer number'],
        [{ campaign_ids: [0] }, 'campaign_ids must not be less than 1'],
        [{ name: '   ' }, 'name must be 1 to 200 characters'],
        [{ name: 5 }, 'name must be a string'],
        [{ account_id: other.caller.accountId }, 'account_id is not a known field'],
      ] as Array<[object, string]>) {
        const res = await c.dash.post('/api-keys', payload);
        expect({ payload, status: res.status, body: res.body }).toEqual({
          payload,
          status: 422,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
      const [{ n }] = await t.db.query(
        'SELECT count(*)::int AS n FROM api_key WHERE account_id = $1',
        [c.caller.accountId],
      );
      expect(n).toBe(1);
      // Without campaign_ids (or with null): every campaign of the account.
      const all = await c.dash.post('/api-keys', { campaign_ids: null });
      expect(all.body).toMatchObject({ name: null, campaign_ids: null });
      for (const keyId of [other.caller.apiKeyId, MISSING_ID]) {
        const res = await c.dash.post(`/api-keys/${keyId}/revoke`);
        expect(res.body).toEqual({
          error: 'not_found',
          message: `api key ${keyId} does not exist`,
        });
      }
      const [theirs] = await t.db.query('SELECT revoked_at FROM api_key WHERE id = $1', [
        other.caller.apiKeyId,
      ]);
      expect(theirs.revoked_at).toBeNull();
    });
  });

  describe('audit log', () => {
    it('filters the log by action and by user (any case of the email), paging within the filter, and refuses an unknown action or a blank user', async () => {
      const c = await customer();
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, body);
      const endpointId = created.body.endpoint.id as number;
      await c.dash.patch(`/endpoints/${endpointId}`, { description: 'one' });
      await c.dash.patch(`/endpoints/${endpointId}`, { description: 'two' });
      await c.dash.patch(`/endpoints/${endpointId}`, { description: 'three' });
      const someoneElse = await customer();
      await someoneElse.dash.patch(`/endpoints/${endpointId}`, { description: 'not theirs' });

      const updates = await c.viewer.get('/audit-log?action=endpoint.update');
      expect(updates.status).toBe(200);
      expect(
        (updates.body.items as Array<{ details: { changes: unknown } }>).map((i) => i.details),
      ).toEqual([
        { changes: { description: 'three' } },
        { changes: { description: 'two' } },
        { changes: { description: 'one' } },
      ]);
      // Paged within the filter: the same entries, one at a time.
      const paged: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page = await c.viewer.get(
          `/audit-log?action=endpoint.update&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        paged.push(...(page.body.items as unknown[]));
        cursor = page.body.next_cursor as string | null;
      } while (cursor !== null && paged.length < 10);
      expect(paged).toEqual(updates.body.items);

      const reader = await givenUser(t, 'viewer', c.caller.accountId);
      await signIn(t, reader);
      const readerEntries = await c.dash.get(
        `/audit-log?user=${encodeURIComponent(reader.email.toUpperCase())}`,
      );
      expect(readerEntries.status).toBe(200);
      expect(readerEntries.body.items).toEqual([
        expect.objectContaining({
          action: 'session.sign_in',
          actor: { type: 'user', user_id: reader.id, email: reader.email },
        }),
      ]);
      const adminUpdates = await c.viewer.get(
        `/audit-log?user=${encodeURIComponent(` ${c.admin.email} `)}&action=endpoint.update`,
      );
      expect(adminUpdates.body.items).toHaveLength(3);
      // What the database holds for the account: the filters leave nothing out.
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM audit_log_entry WHERE account_id = $1 AND action = 'endpoint.update'`,
        [c.caller.accountId],
      );
      expect(n).toBe(3);

      for (const [query, message] of [
        ['?action=endpoint.explode', 'action must be one of session.sign_in'],
        ['?user=', 'user must be an email of 1 to 320 characters'],
        ['?user=%20%20', 'user must be an email of 1 to 320 characters'],
        [`?user=${'a'.repeat(321)}`, 'user must be an email of 1 to 320 characters'],
        ['?action=a&action=b', 'action must be a string'],
      ]) {
        const refused = await c.viewer.get(`/audit-log${query}`);
        expect({ query, status: refused.status, body: refused.body }).toEqual({
          query,
          status: 422,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
    });

    it('lists the account’s sign-ins and changes newest first, with user and IP, paged, never a secret', async () => {
      const c = await customer();
      const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, body);
      const endpointId = created.body.endpoint.id as number;
      await c.dash.patch(`/endpoints/${endpointId}`, { enabled: false });
      const revealed = await c.dash.post(`/endpoints/${endpointId}/secret/reveal`);
      const rotated = await c.dash.post(`/endpoints/${endpointId}/secret/rotate`);
      const key = await c.dash.post('/api-keys', { name: 'audited' });
      await c.dash.post(`/api-keys/${key.body.id}/revoke`);
      await c.dash.delete(`/endpoints/${endpointId}`);
      const someoneElse = await customer();
      await someoneElse.dash.post(`/campaigns/${someoneElse.caller.campaignId}/endpoints`, body);

      const res = await c.viewer.get('/audit-log');
      expect(res.status).toBe(200);
      expect(res.body.next_cursor).toBeNull();
      const items = res.body.items as Array<Record<string, unknown>>;
      const actions = items.map((item) => item.action);
      expect(actions).toEqual([
        'endpoint.delete',
        'api_key.revoke',
        'api_key.create',
        'secret.rotate',
        'secret.reveal',
        'endpoint.update',
        'endpoint.create',
        'session.sign_in', // the viewer's
        'session.sign_in', // the admin's
      ]);
      const [deleted] = items;
      expect(deleted).toEqual({
        id: expect.any(Number),
        created_at: expect.stringMatching(ISO),
        actor: { type: 'user', user_id: c.admin.id, email: c.admin.email },
        ip: expect.any(String),
        action: 'endpoint.delete',
        object_type: 'endpoint',
        object_id: String(endpointId),
        details: { campaign_id: c.caller.campaignId, url: body.url },
      });
      for (const item of items) expect(LOOPBACK).toContain(item.ip);
      const text = JSON.stringify(items);
      for (const secret of [created.body.secret, revealed.body.secret, rotated.body.secret]) {
        expect(text).not.toContain(String(secret).slice(6));
      }
      expect(text).not.toContain(key.body.api_key);
      expect(text).not.toContain(c.admin.password);

      // Paged: the same entries, a page at a time.
      const paged: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page = await c.dash.get(
          `/audit-log?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.body.items.length).toBeLessThanOrEqual(4);
        paged.push(...(page.body.items as unknown[]));
        cursor = page.body.next_cursor as string | null;
      } while (cursor !== null && paged.length < 20);
      expect(paged).toEqual(items);
      for (const [query, message] of [
        ['?limit=0', 'limit must be an integer from 1 to 100'],
        ['?limit=ten', 'limit must be an integer from 1 to 100'],
        ['?cursor=%%%', 'cursor is not a cursor of this list'],
        ['?cursor=a&cursor=b', 'cursor must be a string'],
        ['?actor=me', 'actor is not a known field'],
      ]) {
        const refused = await c.viewer.get(`/audit-log${query}`);
        expect({ query, status: refused.status, body: refused.body }).toEqual({
          query,
          status: 422,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
    });
  });

  describe('the OpenAPI document', () => {
    it('documents every dashboard route with its parameters, bodies, answers and errors', () => {
      const routes = dashboardRoutes(t.app.getHttpAdapter().getInstance()).filter(
        (route) => route.method !== 'HEAD' && route.access !== undefined,
      );
      expect(routes.length).toBe(62);
      for (const route of routes) {
        const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        const operation = doc.paths[path]?.[route.method.toLowerCase() as Method];
        expect({ route, documented: operation !== undefined }).toEqual({
          route,
          documented: true,
        });
        const statuses = Object.keys(operation!.responses);
        expect(statuses.some((status) => status.startsWith('2'))).toBe(true);
        expect(statuses).toEqual(expect.arrayContaining(['500', '503']));
        if (route.access !== 'sign-in') expect(statuses).toContain('401');
        if (route.access === 'admin') expect(statuses).toContain('403');
        for (const name of route.url.match(/(?<=:)[A-Za-z0-9_]+/g) ?? []) {
          expect(operation!.parameters).toContainEqual(
            expect.objectContaining({ name, in: 'path', required: true }),
          );
          // An integer id that is not one is 400; an import id (a UUID) names no import: 404.
          expect(statuses).toEqual(
            expect.arrayContaining(name === 'import_id' ? ['404'] : ['400', '404']),
          );
        }
        if (route.method !== 'GET') {
          expect(operation!.parameters).toContainEqual(
            expect.objectContaining({ name: 'X-CSRF-Token', in: 'header' }),
          );
        }
        expect(operation!.security).toEqual(route.access === 'sign-in' ? [] : [{ session: [] }]);
      }
      const requestBody = (path: string, method: Method) =>
        (doc.paths[path][method]!.requestBody as { content: Record<string, { schema: unknown }> })
          .content['application/json'].schema;
      expect(requestBody(`${API}/campaigns/{campaign_id}/endpoints`, 'post')).toEqual({
        $ref: '#/components/schemas/CreateEndpointRequest',
      });
      expect(requestBody(`${API}/endpoints/{endpoint_id}`, 'patch')).toEqual({
        $ref: '#/components/schemas/UpdateEndpointRequest',
      });
      expect(requestBody(`${API}/api-keys`, 'post')).toEqual({
        $ref: '#/components/schemas/CreateApiKeyRequest',
      });
      const schemas = doc.components!.schemas as Record<string, { additionalProperties?: boolean }>;
      for (const name of [
        'DashboardEndpoint',
        'CreateEndpointRequest',
        'DeliveryAttemptDetail',
        'DeliveryLedger',
        'DeliveryLedgerDay',
      ]) {
        expect(schemas[name].additionalProperties).toBe(false);
      }
    });
  });
});
