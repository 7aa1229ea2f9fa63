/**
 * Payload filters per endpoint, end to end (docs/webhooks.md#payload-filters): checked on save
 * against the subscribed types' schemas (422 naming the position, nothing written), evaluated
 * when an upload records its events (a non-matching event gets no delivery for that endpoint,
 * an evaluation error counts as no match), counted per day in the delivery ledger, audited,
 * and tried on examples and recent events without sending ("Try it").
 */
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const API = '/dashboard/api';
const UPLOAD = '/api/v1/leads/upload';

describe('Payload filters (docs/webhooks.md#payload-filters)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  /** One receiver per endpoint, by the name the test gives it. */
  const receivers = new Map<string, WebhookReceiver>();

  beforeAll(async () => {
    t = await startTestApp();
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
    for (const r of receivers.values()) await r.stop();
  });

  interface Customer {
    caller: Caller;
    admin: GivenUser;
    session: SignedIn;
  }

  async function customer(): Promise<Customer> {
    const caller = await t.given.caller();
    const admin = await givenUser(t, 'admin', caller.accountId);
    return { caller, admin, session: await signIn(t, admin) };
  }

  function send(session: SignedIn, method: 'get' | 'post' | 'patch', path: string, body?: object) {
    let req = t.http()[method](`${API}${path}`).set('Cookie', session.cookie);
    if (method !== 'get') req = req.set('X-CSRF-Token', session.csrf).send(body ?? {});
    return req;
  }

  /** Creates an endpoint through the dashboard, delivering to a receiver of its own, `name`. */
  async function endpoint(c: Customer, name: string, filter: string | null): Promise<number> {
    const own = await new WebhookReceiver().start();
    receivers.set(name, own);
    const res = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/endpoints`, {
      url: own.url,
      events: ['lead.created'],
      ...(filter === null ? {} : { filter }),
    });
    expect(res.status).toBe(201);
    return res.body.endpoint.id as number;
  }

  function upload(c: Customer, leads: unknown[], extra: Record<string, unknown> = {}) {
    return t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${c.caller.token}`)
      .send(uploadBody(c.caller.campaignId, leads, extra));
  }

  async function deliveriesOf(endpointId: number): Promise<number> {
    const [row] = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_delivery WHERE endpoint_id = $1',
      [endpointId],
    );
    return row.n as number;
  }

  async function filteredDays(endpointId: number) {
    return t.db.query(
      'SELECT day::text, filtered, errors FROM endpoint_filtered_day WHERE endpoint_id = $1',
      [endpointId],
    ) as Promise<Array<{ day: string; filtered: number; errors: number }>>;
  }

  const receivedAt = (name: string) =>
    receivers
      .get(name)!
      .received.map((w) => JSON.parse(w.body) as { data: Record<string, unknown> });

  it('refuses a typo, a type error, an unknown function or a syntax error with 422 naming the position, and writes nothing', async () => {
    const c = await customer();
    const cases: Array<[string, RegExp]> = [
      [
        'data.source == "x" && data.sorce == "y"',
        /^filter has an error at line 1, column 28 \(for lead\.created events\): No such key: sorce$/,
      ],
      [
        'data.source > 5',
        /^filter has an error at line 1, column 1 \(for lead\.created events\): no such overload: string > int$/,
      ],
      [
        'lower(data.source) == "x"',
        /^filter has an error at line 1, column 1: function lower\(\) is not available in filters$/,
      ],
      [
        'data.source == "a" &&\n  == "b"',
        /^filter has an error at line 2, column 3: Unexpected token/,
      ],
    ];
    for (const [filter, message] of cases) {
      const res = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/endpoints`, {
        url: `${receiver.url}/refused`,
        events: ['lead.created'],
        filter,
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.message).toMatch(message);
    }
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_endpoint WHERE campaign_id = $1',
      [c.caller.campaignId],
    );
    expect(n).toBe(0);
    const audit = await t.db.query(
      `SELECT 1 FROM audit_log_entry WHERE account_id = $1 AND action LIKE 'endpoint.%'`,
      [c.caller.accountId],
    );
    expect(audit).toHaveLength(0);

    // An update that would break a saved filter (a type without the field) is refused too.
    const id = await endpoint(c, 'kept', 'data.source == "facebook"');
    const res = await send(c.session, 'patch', `/endpoints/${id}`, { events: ['call.completed'] });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('No such key: source');
    const [row] = await t.db.query(
      'SELECT filter, subscribed_events FROM webhook_endpoint WHERE id = $1',
      [id],
    );
    expect(row).toEqual({
      filter: 'data.source == "facebook"',
      subscribed_events: ['lead.created'],
    });
  });

  it('gives a filtered endpoint only the events it matches, counts the rest per day (errors as no match), and the others every event', async () => {
    const c = await customer();
    const named = await endpoint(c, 'named-a', 'data.first_name.startsWith("A")');
    const everything = await endpoint(c, 'everything', null);
    const nothing = await endpoint(c, 'nothing', 'data.source == "nowhere"');

    const res = await upload(
      c,
      [
        { phone: '+14155550101', first_name: 'Alice' },
        { phone: '+14155550102', first_name: 'Bob' },
        { phone: '+14155550103', first_name: 'Anna' },
        // first_name null: startsWith fails on null, an evaluation error, so no match.
        { phone: '+14155550104' },
      ],
      { source: 'facebook' },
    );
    expect(res.status).toBe(202);

    expect(await deliveriesOf(named)).toBe(2);
    expect(await deliveriesOf(everything)).toBe(4);
    expect(await deliveriesOf(nothing)).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(await filteredDays(named)).toEqual([{ day: today, filtered: 2, errors: 1 }]);
    expect(await filteredDays(nothing)).toEqual([{ day: today, filtered: 4, errors: 0 }]);
    expect(await filteredDays(everything)).toEqual([]);

    await eventually(async () => expect(receivedAt('everything')).toHaveLength(4));
    expect(
      receivedAt('named-a')
        .map((b) => b.data.first_name)
        .sort(),
    ).toEqual(['Alice', 'Anna']);
    expect(receivedAt('everything')).toHaveLength(4);

    // The ledger shows the filtered-out events next to the deliveries, outside the identity.
    const ledger = await send(c.session, 'get', `/endpoints/${named}/ledger?days=1`);
    expect(ledger.status).toBe(200);
    expect(ledger.body.days).toEqual([
      expect.objectContaining({ day: today, matched: 2, filtered: 2 }),
    ]);
    const none = await send(c.session, 'get', `/endpoints/${nothing}/ledger?days=1`);
    expect(none.body.days).toEqual([
      {
        day: today,
        matched: 0,
        delivered: 0,
        failed: 0,
        pending: 0,
        throttled: 0,
        skipped: 0,
        filtered: 4,
      },
    ]);
  });

  it('keeps an upload and the other endpoints unaffected by a hostile filter that was accepted', async () => {
    const c = await customer();
    // Catastrophic for a backtracking engine on "aaaa…!", linear for RE2.
    const hostile = await endpoint(c, 'hostile', 'data.company.matches("(a+)+$")');
    // Fails on every event at run time (last_name is never given): no match, never a crash.
    const failing = await endpoint(c, 'failing', 'data.last_name.size() > 2');
    const plain = await endpoint(c, 'plain', null);
    const company = `${'a'.repeat(200)}!`;
    const leads = Array.from({ length: 50 }, (_, i) => ({
      phone: `+1415555${String(2000 + i)}`,
      company,
    }));
    const started = Date.now();
    const res = await upload(c, leads);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ valid_count: 50 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await deliveriesOf(plain)).toBe(50);
    expect(await deliveriesOf(hostile)).toBe(0);
    expect(await deliveriesOf(failing)).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(await filteredDays(failing)).toEqual([{ day: today, filtered: 50, errors: 50 }]);
    await eventually(async () => expect(receivedAt('plain')).toHaveLength(50));
  });

  it('audits the filter on create, and its old and new value on change', async () => {
    const c = await customer();
    const id = await endpoint(c, 'audited', 'data.source == "facebook"');
    let res = await send(c.session, 'patch', `/endpoints/${id}`, {
      filter: '  "vip" in data.tags  ',
    });
    expect(res.status).toBe(200);
    expect(res.body.filter).toBe('"vip" in data.tags');
    res = await send(c.session, 'patch', `/endpoints/${id}`, { filter: '' });
    expect(res.status).toBe(200);
    expect(res.body.filter).toBeNull();
    const [row] = await t.db.query('SELECT filter FROM webhook_endpoint WHERE id = $1', [id]);
    expect(row.filter).toBeNull();

    const entries = await t.db.query(
      `SELECT action, details FROM audit_log_entry WHERE account_id = $1 AND object_id = $2 ORDER BY id`,
      [c.caller.accountId, String(id)],
    );
    expect(entries).toEqual([
      {
        action: 'endpoint.create',
        details: expect.objectContaining({ filter: 'data.source == "facebook"' }),
      },
      {
        action: 'endpoint.update',
        details: {
          changes: { filter: '"vip" in data.tags' },
          previous_filter: 'data.source == "facebook"',
        },
      },
      {
        action: 'endpoint.update',
        details: { changes: { filter: null }, previous_filter: '"vip" in data.tags' },
      },
    ]);
    const detail = await send(c.session, 'get', `/endpoints/${id}`);
    expect(detail.body.filter).toBeNull();
  });

  it('tries a filter on each type’s example and the campaign’s recent events, sending and writing nothing', async () => {
    const c = await customer();
    await endpoint(c, 'preview', null);
    await upload(c, [
      { phone: '+14155550301', first_name: 'Alice' },
      { phone: '+14155550302', first_name: 'Bob' },
      { phone: '+14155550303' },
    ]);
    await eventually(async () => expect(receivedAt('preview')).toHaveLength(3));
    const deliveriesBefore = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id WHERE e.campaign_id = $1',
      [c.caller.campaignId],
    );
    receivers.get('preview')!.received.length = 0;

    const res = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/filter-preview`, {
      filter: 'data.first_name.startsWith("A")',
      events: ['lead.created'],
    });
    expect(res.status).toBe(200);
    const items = res.body.items as Array<Record<string, unknown>>;
    expect(items[0]).toEqual({
      source: 'example',
      type: 'lead.created',
      event_id: null,
      recorded_at: null,
      // The example's first name is Alva.
      result: 'match',
      error: null,
    });
    // Newest first: the lead without a name, Bob, Alice (one INSERT: same time, by id).
    const events = items.slice(1);
    expect(events).toHaveLength(3);
    expect(events.map((e) => e.result).sort()).toEqual(['error', 'match', 'no_match']);
    expect(events.find((e) => e.result === 'error')).toMatchObject({
      source: 'event',
      type: 'lead.created',
      error: expect.stringContaining('startsWith'),
    });
    for (const e of events) expect(e.event_id).toMatch(/^[0-9a-f-]{36}$/);

    const refused = await send(
      c.session,
      'post',
      `/campaigns/${c.caller.campaignId}/filter-preview`,
      { filter: 'data.stat == "CA"', events: ['lead.created'] },
    );
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain(
      'at line 1, column 6 (for lead.created events): No such key: stat',
    );

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receivedAt('preview')).toHaveLength(0);
    const deliveriesAfter = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id WHERE e.campaign_id = $1',
      [c.caller.campaignId],
    );
    expect(deliveriesAfter).toEqual(deliveriesBefore);
  });
});
