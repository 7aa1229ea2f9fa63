/**
 * Custom headers of a webhook endpoint, end to end (docs/webhooks.md#custom-headers): set in
 * the dashboard API, sent on every attempt (first tries, retries, redeliveries, test events),
 * a secret one stored only encrypted, masked in reads, revealed only through a recorded
 * reveal, and redacted from the delivery log; invalid headers refused with nothing written.
 */
import { AuditLog } from '../src/audit/audit-log.service';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, type Caller, type TestApp } from './support/test-app';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import { madeUpEvent } from './support/events';

const API = '/dashboard/api';
const SECRET_VALUE = 'Bearer tok-3f9c2a71d05e4b8e9a61';
const API_KEY_VALUE = 'k-0123456789abcdef';

describe('Endpoint custom headers (docs/webhooks.md#custom-headers)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1s' });
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.behaviour = { status: 204 };
  });

  interface Customer {
    caller: Caller;
    admin: GivenUser;
    session: SignedIn;
    viewer: SignedIn;
  }

  async function customer(): Promise<Customer> {
    const caller = await t.given.caller();
    const admin = await givenUser(t, 'admin', caller.accountId);
    const viewer = await givenUser(t, 'viewer', caller.accountId);
    return {
      caller,
      admin,
      session: await signIn(t, admin),
      viewer: await signIn(t, viewer),
    };
  }

  function send(session: SignedIn, method: 'get' | 'post' | 'patch', path: string, body?: object) {
    let req = t.http()[method](`${API}${path}`).set('Cookie', session.cookie);
    if (method !== 'get') req = req.set('X-CSRF-Token', session.csrf).send(body ?? {});
    return req;
  }

  async function storedHeaders(id: number): Promise<unknown> {
    const [row] = await t.db.query('SELECT custom_headers FROM webhook_endpoint WHERE id = $1', [
      id,
    ]);
    return row.custom_headers;
  }

  async function auditEntries(accountId: number, action: string) {
    return (await t.db.query(
      `SELECT action, object_id, details, actor_user_id FROM audit_log_entry
        WHERE account_id = $1 AND action = $2 ORDER BY id`,
      [accountId, action],
    )) as Array<{
      action: string;
      object_id: string;
      details: Record<string, unknown> & { headers?: unknown };
      actor_user_id: number;
    }>;
  }

  const headers = [
    { name: 'X-Tenant', value: 'acme' },
    { name: 'Authorization', value: SECRET_VALUE, secret: true },
    { name: 'X-Api-Key', value: API_KEY_VALUE, secret: true },
  ];

  async function createWithHeaders(c: Customer) {
    const res = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/endpoints`, {
      url: receiver.url,
      events: ['lead.created'],
      headers,
    }).expect(201);
    return res.body as {
      endpoint: { id: number; custom_headers: Array<Record<string, unknown>> };
      secret: string;
    };
  }

  it('answers secret values once at creation, masks them in reads and stores them only encrypted', async () => {
    const c = await customer();
    const created = await createWithHeaders(c);
    expect(created.endpoint.custom_headers).toEqual([
      { name: 'X-Tenant', secret: false, value: 'acme', masked_value: null },
      { name: 'Authorization', secret: true, value: SECRET_VALUE, masked_value: '••••9a61' },
      { name: 'X-Api-Key', secret: true, value: API_KEY_VALUE, masked_value: '••••cdef' },
    ]);
    const id = created.endpoint.id;

    const read = await send(c.viewer, 'get', `/endpoints/${id}`).expect(200);
    expect(read.body.custom_headers).toEqual([
      { name: 'X-Tenant', secret: false, value: 'acme', masked_value: null },
      { name: 'Authorization', secret: true, value: null, masked_value: '••••9a61' },
      { name: 'X-Api-Key', secret: true, value: null, masked_value: '••••cdef' },
    ]);
    const listed = await send(c.viewer, 'get', `/campaigns/${c.caller.campaignId}/endpoints`);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET_VALUE);
    expect(listed.body[0].custom_headers[1]).toMatchObject({
      value: null,
      masked_value: '••••9a61',
    });

    // The column as PostgreSQL holds it.
    const [{ text: stored }] = await t.db.query(
      'SELECT custom_headers::text AS text FROM webhook_endpoint WHERE id = $1',
      [id],
    );
    expect(stored).toContain('X-Tenant');
    expect(stored).not.toContain(SECRET_VALUE);
    expect(stored).not.toContain('tok-3f9c2a71d05e4b8e9a61');
    expect(stored).not.toContain(API_KEY_VALUE);
    expect(stored).toMatch(/"encrypted": "v1:[^"]+"/);

    // The public API shows no custom header at all.
    const publicRead = await t
      .http()
      .get(`/api/v1/webhooks/${c.caller.campaignId}/endpoints`)
      .set('Authorization', `Bearer ${c.caller.token}`)
      .expect(200);
    expect(JSON.stringify(publicRead.body)).not.toContain('X-Api-Key');

    const [entry] = await auditEntries(c.caller.accountId, 'endpoint.create');
    expect(entry.details.headers).toEqual([
      { name: 'X-Tenant', secret: false, value: 'acme' },
      { name: 'Authorization', secret: true, value_changed: true },
      { name: 'X-Api-Key', secret: true, value_changed: true },
    ]);
    const audit = JSON.stringify(
      await t.db.query('SELECT details FROM audit_log_entry WHERE account_id = $1', [
        c.caller.accountId,
      ]),
    );
    expect(audit).not.toContain('tok-3f9c2a71');
    expect(audit).not.toContain(API_KEY_VALUE);
  });

  it('sends the headers on first tries, retries, redeliveries and test events, and redacts secret ones from the log', async () => {
    const c = await customer();
    const created = await createWithHeaders(c);
    const id = created.endpoint.id;
    // The first try fails and is retried a second later.
    receiver.behaviour = (index) => ({ status: index === 0 ? 500 : 204 });
    await t.app
      .get(WebhookEventPublisher)
      .publish(c.caller.campaignId, [
        madeUpEvent('lead.created', { id: 1, campaign_id: c.caller.campaignId }),
      ]);
    await eventually(async () => expect(receiver.received).toHaveLength(2));

    const [delivery] = await t.db.query(
      'SELECT id, status FROM webhook_delivery WHERE endpoint_id = $1',
      [id],
    );
    await eventually(async () => {
      const [row] = await t.db.query('SELECT status FROM webhook_delivery WHERE id = $1', [
        delivery.id,
      ]);
      expect(row.status).toBe('succeeded');
    });
    await send(c.session, 'post', `/deliveries/${delivery.id}/redeliver`).expect(200);
    await send(c.session, 'post', `/endpoints/${id}/test`, { event_type: 'ping' }).expect(200);
    expect(receiver.received).toHaveLength(4);
    for (const got of receiver.received) {
      expect(got.headers['x-tenant']).toBe('acme');
      expect(got.headers.authorization).toBe(SECRET_VALUE);
      expect(got.headers['x-api-key']).toBe(API_KEY_VALUE);
      // The service's own headers are untouched, and the signature still verifies.
      expect(got.headers['content-type']).toBe('application/json');
      expect(verifyWebhook(created.secret, got)).toBeTruthy();
    }

    const attempts = (await t.db.query(
      `SELECT id, request_headers FROM webhook_delivery_attempt WHERE endpoint_id = $1 ORDER BY id`,
      [id],
    )) as Array<{ id: string; request_headers: Record<string, string> }>;
    expect(attempts).toHaveLength(4);
    for (const attempt of attempts) {
      expect(attempt.request_headers).toMatchObject({
        'X-Tenant': 'acme',
        Authorization: '[redacted]',
        'X-Api-Key': '[redacted]',
      });
    }
    const log = JSON.stringify(
      await t.db.query('SELECT * FROM webhook_delivery_attempt WHERE endpoint_id = $1', [id]),
    );
    expect(log).not.toContain('tok-3f9c2a71');
    expect(log).not.toContain(API_KEY_VALUE);

    const detail = await send(c.viewer, 'get', `/attempts/${attempts[0].id}`).expect(200);
    expect(detail.body.request.headers).toMatchObject({
      'X-Tenant': 'acme',
      Authorization: '[redacted]',
      'X-Api-Key': '[redacted]',
    });
    const logPage = await send(c.viewer, 'get', `/endpoints/${id}/attempts`).expect(200);
    expect(JSON.stringify(logPage.body)).not.toContain('tok-3f9c2a71');
  });

  it('sends headers named like Object.prototype keys (__proto__, constructor) as any other, and logs them', async () => {
    const c = await customer();
    const res = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/endpoints`, {
      url: receiver.url,
      events: ['lead.created'],
      headers: [
        { name: '__proto__', value: 'proto-value' },
        { name: 'constructor', value: 'constructor-secret', secret: true },
        { name: 'X-After', value: 'after' },
      ],
    }).expect(201);
    const id = res.body.endpoint.id as number;
    expect(res.body.endpoint.custom_headers).toEqual([
      { name: '__proto__', secret: false, value: 'proto-value', masked_value: null },
      { name: 'constructor', secret: true, value: 'constructor-secret', masked_value: '••••cret' },
      { name: 'X-After', secret: false, value: 'after', masked_value: null },
    ]);
    await t.app
      .get(WebhookEventPublisher)
      .publish(c.caller.campaignId, [
        madeUpEvent('lead.created', { id: 1, campaign_id: c.caller.campaignId }),
      ]);
    await eventually(async () => expect(receiver.received).toHaveLength(1));
    const raw = receiver.received[0].rawHeaders;
    const pairs = raw.flatMap((name, i) => (i % 2 === 0 ? [[name, raw[i + 1]]] : []));
    expect(pairs.slice(-4, -1)).toEqual([
      ['__proto__', 'proto-value'],
      ['constructor', 'constructor-secret'],
      ['X-After', 'after'],
    ]);
    await eventually(async () => {
      const rows = await t.db.query(
        `SELECT request_headers->>'__proto__' AS proto, request_headers->>'constructor' AS ctor,
                request_headers->>'X-After' AS after
           FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL`,
        [id],
      );
      expect(rows).toEqual([{ proto: 'proto-value', ctor: '[redacted]', after: 'after' }]);
    });
  });

  it('reveals a secret value to an admin only, recording the reveal without the value', async () => {
    const c = await customer();
    const { endpoint } = await createWithHeaders(c);
    const res = await send(c.session, 'post', `/endpoints/${endpoint.id}/headers/reveal`, {
      name: 'authorization',
    }).expect(200);
    expect(res.body).toEqual({ name: 'Authorization', value: SECRET_VALUE });
    const entries = await auditEntries(c.caller.accountId, 'header.reveal');
    expect(entries).toEqual([
      {
        action: 'header.reveal',
        object_id: String(endpoint.id),
        details: { name: 'Authorization' },
        actor_user_id: c.admin.id,
      },
    ]);

    // A viewer may not; a plain or unknown header has nothing to reveal.
    await send(c.viewer, 'post', `/endpoints/${endpoint.id}/headers/reveal`, {
      name: 'Authorization',
    }).expect(403);
    const plain = await send(c.session, 'post', `/endpoints/${endpoint.id}/headers/reveal`, {
      name: 'X-Tenant',
    }).expect(404);
    expect(plain.body).toEqual({
      error: 'not_found',
      message: `webhook endpoint ${endpoint.id} has no secret header "X-Tenant"`,
    });
    expect(await auditEntries(c.caller.accountId, 'header.reveal')).toHaveLength(1);

    // When the entry cannot be written, the value is not shown.
    const audit = t.app.get(AuditLog);
    const failing = jest
      .spyOn(audit, 'recordChange')
      .mockRejectedValueOnce(new Error('the audit log is unavailable'));
    try {
      const refused = await send(c.session, 'post', `/endpoints/${endpoint.id}/headers/reveal`, {
        name: 'Authorization',
      }).expect(500);
      expect(JSON.stringify(refused.body)).not.toContain('tok-3f9c2a71');
    } finally {
      failing.mockRestore();
    }
    expect(await auditEntries(c.caller.accountId, 'header.reveal')).toHaveLength(1);
  });

  it('keeps a secret value given without one, replaces and removes headers, and audits names only', async () => {
    const c = await customer();
    const { endpoint } = await createWithHeaders(c);
    const before = (await storedHeaders(endpoint.id)) as Array<Record<string, unknown>>;
    const res = await send(c.session, 'patch', `/endpoints/${endpoint.id}`, {
      headers: [
        { name: 'Authorization', secret: true },
        { name: 'X-Api-Key', value: 'k-new-value-0000-9999', secret: true },
      ],
    }).expect(200);
    expect(res.body.custom_headers).toEqual([
      { name: 'Authorization', secret: true, value: null, masked_value: '••••9a61' },
      { name: 'X-Api-Key', secret: true, value: 'k-new-value-0000-9999', masked_value: '••••9999' },
    ]);
    const after = (await storedHeaders(endpoint.id)) as Array<Record<string, unknown>>;
    expect(after[0].encrypted).toBe(before[1].encrypted);
    expect(after[1].encrypted).not.toBe(before[2].encrypted);
    expect(JSON.stringify(after)).not.toContain('k-new-value');

    const [update] = await auditEntries(c.caller.accountId, 'endpoint.update');
    expect(update.details).toEqual({
      changes: {
        headers: [
          { name: 'Authorization', secret: true, value_changed: false },
          { name: 'X-Api-Key', secret: true, value_changed: true },
        ],
      },
    });

    await send(c.session, 'post', `/endpoints/${endpoint.id}/test`, {}).expect(200);
    const got = receiver.received.at(-1)!;
    expect(got.headers.authorization).toBe(SECRET_VALUE);
    expect(got.headers['x-api-key']).toBe('k-new-value-0000-9999');
    expect(got.headers['x-tenant']).toBeUndefined();

    await send(c.session, 'patch', `/endpoints/${endpoint.id}`, { headers: [] }).expect(200);
    expect(await storedHeaders(endpoint.id)).toEqual([]);
  });

  it.each<[string, object[], string]>([
    [
      'a hop-by-hop header',
      [{ name: 'Connection', value: 'close' }],
      'header "Connection" cannot be set',
    ],
    [
      'a webhook-* name',
      [{ name: 'Webhook-Signature', value: 'v1,x' }],
      'header "Webhook-Signature" cannot be set',
    ],
    [
      'a value with CR LF',
      [{ name: 'X-A', value: 'a\r\nX-Evil: 1' }],
      'header "X-A": the value must not contain CR, LF or NUL',
    ],
    [
      'a value with a NUL',
      [{ name: 'X-A', value: 'a\u0000b' }],
      'header "X-A": the value must not contain CR, LF or NUL',
    ],
    [
      'a name with a NUL',
      [{ name: 'X-\u0000A', value: '1' }],
      'header name "X-\\u0000A" is not a valid HTTP header name',
    ],
    [
      'a value with another control character',
      [{ name: 'X-A', value: 'a\u0007b' }],
      'header "X-A": the value may hold only visible ASCII characters',
    ],
    [
      'a name given twice',
      [
        { name: 'X-A', value: '1' },
        { name: 'x-a', value: '2' },
      ],
      'header "x-a" is given twice',
    ],
    [
      'a name that is no token',
      [{ name: 'Bad Name', value: '1' }],
      'header name "Bad Name" is not a valid HTTP header name',
    ],
    [
      'a value too long',
      [{ name: 'X-A', value: 'v'.repeat(1001) }],
      'header "X-A": the value is longer than 1000',
    ],
    [
      '21 headers',
      Array.from({ length: 21 }, (_, i) => ({ name: `X-${i}`, value: 'v' })),
      'at most 20 custom headers',
    ],
    [
      'a new secret without a value',
      [{ name: 'Authorization', secret: true }],
      'header "Authorization" needs a value',
    ],
  ])('refuses %s with 422 naming the header, writing nothing', async (_what, bad, message) => {
    const c = await customer();
    const create = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/endpoints`, {
      url: receiver.url,
      events: ['lead.created'],
      headers: bad,
    }).expect(422);
    expect(create.body.error).toBe('validation_failed');
    expect(create.body.message).toContain(message);
    const [{ count }] = await t.db.query(
      'SELECT count(*)::int AS count FROM webhook_endpoint WHERE campaign_id = $1',
      [c.caller.campaignId],
    );
    expect(count).toBe(0);

    const { id } = await t.given.endpoint(c.caller.campaignId, receiver.url, ['lead.created']);
    const update = await send(c.session, 'patch', `/endpoints/${id}`, {
      description: 'not saved either',
      headers: bad,
    }).expect(422);
    expect(update.body.message).toContain(message);
    const [row] = await t.db.query(
      'SELECT description, custom_headers FROM webhook_endpoint WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ description: null, custom_headers: [] });
    expect(await auditEntries(c.caller.accountId, 'endpoint.update')).toEqual([]);
  });

  it('refuses headers of the wrong shape with 422', async () => {
    const c = await customer();
    const res = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/endpoints`, {
      url: receiver.url,
      events: ['lead.created'],
      headers: [{ name: 'X-A', value: 1 }],
    }).expect(422);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.message).toContain('headers must be an array of {name, value, secret} objects');
  });
});
