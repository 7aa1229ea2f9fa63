import { DeliveryRecoveryRunner } from '../src/delivery/delivery-recovery.runner';
import { WebhookEventPublisher } from '../src/delivery/webhook-event.publisher';
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { eventually, sleep } from './support/eventually';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Bulk recovery of an endpoint's failed deliveries (docs/webhooks.md#bulk-recovery,
 * docs/dashboard.md#bulk-recovery): the preview's count, a recovery that sends every failed
 * delivery exactly once more through the normal pipeline, one running recovery per endpoint,
 * cancelling, a recovery left by a process without a worker, and the routes' refusals. A short
 * retry schedule ('1s') makes deliveries fail for good quickly while the receiver answers 500.
 */
describe('Bulk recovery of failed deliveries (docs/webhooks.md#bulk-recovery)', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_RETRY_SCHEDULE: '1s',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  interface Setup {
    admin: GivenUser;
    session: SignedIn;
    campaignId: number;
    endpointId: number;
    receiver: WebhookReceiver;
  }

  /** An admin signed in, and an endpoint of their account whose receiver answers 500. */
  async function setup(): Promise<Setup> {
    const admin = await givenUser(t, 'admin');
    const session = await signIn(t, admin);
    const receiver = await new WebhookReceiver().start();
    receivers.push(receiver);
    receiver.behaviour = { status: 500 };
    const campaignId = await t.given.campaign(admin.accountId);
    const { id: endpointId } = await t.given.endpoint(campaignId, receiver.url, ['lead.created']);
    return { admin, session, campaignId, endpointId, receiver };
  }

  /** Records `n` events to the endpoint and waits until each delivery has failed for good. */
  async function failed(s: Setup, n: number): Promise<number[]> {
    const recorded = await t.app.get(WebhookEventPublisher).publish(
      s.campaignId,
      Array.from({ length: n }, (_, i) => ({
        type: 'lead.created' as const,
        data: { id: i, campaign_id: s.campaignId },
      })),
    );
    const ids = recorded.deliveries.map((d) => d.id);
    await eventually(async () => {
      const [{ n: left }] = await t.db.query(
        `SELECT count(*)::int AS n FROM webhook_delivery WHERE id = ANY($1) AND status <> 'failed'`,
        [ids],
      );
      expect(left).toBe(0);
    }, 30_000);
    return ids;
  }

  const get = (s: Setup, path: string) =>
    t.http().get(`/dashboard/api${path}`).set('Cookie', s.session.cookie);
  const post = (s: Setup, path: string, body: object = {}) =>
    t
      .http()
      .post(`/dashboard/api${path}`)
      .set({ Cookie: s.session.cookie, 'X-CSRF-Token': s.session.csrf })
      .send(body);

  const recoveryRow = async (id: number) =>
    (
      await t.db.query(
        'SELECT endpoint_id, status, total, processed, finished_at FROM delivery_recovery WHERE id = $1',
        [id],
      )
    )[0];

  /** Requests received per webhook-id. */
  const perWebhookId = (r: WebhookReceiver) => {
    const counts = new Map<string, number>();
    for (const w of r.received) {
      const id = String(w.headers['webhook-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };

  const dbNow = async (): Promise<string> =>
    ((await t.db.query('SELECT now() AS now'))[0].now as Date).toISOString();

  it('previews exactly the endpoint’s failed deliveries created at or after since', async () => {
    const s = await setup();
    await failed(s, 3);
    const since = await dbNow();
    await failed(s, 2);
    const res = await get(s, `/endpoints/${s.endpointId}/recovery/preview?since=${since}`).expect(
      200,
    );
    expect(res.body).toEqual({ since, failed_count: 2 });
    const all = await get(
      s,
      `/endpoints/${s.endpointId}/recovery/preview?since=2020-01-01T00:00:00%2B02:00`,
    ).expect(200);
    expect(all.body).toEqual({ since: '2019-12-31T22:00:00.000Z', failed_count: 5 });
    // Another endpoint's failures and deliveries that did not fail are not counted.
    const other = await setup();
    expect(
      (
        await get(other, `/endpoints/${other.endpointId}/recovery/preview?since=${since}`).expect(
          200,
        )
      ).body,
    ).toEqual({ since, failed_count: 0 });
  });

  it('redelivers every failed delivery since the time exactly once more, with the same webhook-id, and ends done', async () => {
    const s = await setup();
    const before = await failed(s, 2);
    const since = await dbNow();
    const recovered = await failed(s, 3);
    const received = s.receiver.received.length;
    s.receiver.behaviour = { status: 204 };

    const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since }).expect(202);
    expect(res.body).toEqual({
      id: expect.any(Number),
      endpoint_id: s.endpointId,
      since,
      status: 'running',
      total: 3,
      processed: 0,
      created_at: expect.any(String),
      finished_at: null,
    });
    const id = res.body.id as number;

    await eventually(async () => {
      expect(await recoveryRow(id)).toEqual({
        endpoint_id: s.endpointId,
        status: 'done',
        total: 3,
        processed: 3,
        finished_at: expect.any(Date),
      });
    }, 20_000);
    // Only the three since `since` went out again, once each, and they succeeded.
    await sleep(1_500);
    expect(s.receiver.received.length).toBe(received + 3);
    const counts = perWebhookId(s.receiver);
    const deliveries: Array<{
      id: string;
      event_id: string;
      status: string;
      attempt_count: number;
    }> = await t.db.query(
      'SELECT id, event_id, status, attempt_count FROM webhook_delivery WHERE endpoint_id = $1 ORDER BY id',
      [s.endpointId],
    );
    for (const d of deliveries) {
      const wasRecovered = recovered.includes(Number(d.id));
      expect(before.includes(Number(d.id)) || wasRecovered).toBe(true);
      expect({ status: d.status, attempts: d.attempt_count, sent: counts.get(d.event_id) }).toEqual(
        wasRecovered
          ? { status: 'succeeded', attempts: 3, sent: 3 }
          : { status: 'failed', attempts: 2, sent: 2 },
      );
    }

    const list = await get(s, `/endpoints/${s.endpointId}/recoveries`).expect(200);
    expect(list.body).toEqual([
      { ...res.body, status: 'done', processed: 3, finished_at: expect.any(String) },
    ]);
    const audit = await t.db.query(
      `SELECT actor_user_id, object_type, object_id, details FROM audit_log_entry
        WHERE account_id = $1 AND action = 'delivery.bulk_redeliver'`,
      [s.admin.accountId],
    );
    expect(audit).toEqual([
      {
        actor_user_id: s.admin.id,
        object_type: 'endpoint',
        object_id: String(s.endpointId),
        details: { recovery_id: id, since, total: 3 },
      },
    ]);
  });

  it('marks a redelivered delivery that fails again failed after that one attempt', async () => {
    const s = await setup();
    const ids = await failed(s, 2);
    const received = s.receiver.received.length;
    const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
      since: '2020-01-01T00:00:00Z',
    }).expect(202);
    await eventually(async () => {
      expect((await recoveryRow(res.body.id)).status).toBe('done');
    }, 20_000);
    await sleep(2_500); // a retry, if one were scheduled, would come 1 s after the attempt
    expect(s.receiver.received.length).toBe(received + 2);
    expect(
      await t.db.query(
        'SELECT status, attempt_count FROM webhook_delivery WHERE id = ANY($1) ORDER BY id',
        [ids],
      ),
    ).toEqual([
      { status: 'failed', attempt_count: 3 },
      { status: 'failed', attempt_count: 3 },
    ]);
  });

  it('answers the running recovery to a second start, and lets cancel stop it before its next batch', async () => {
    const s = await setup();
    const ids = await failed(s, 150);
    s.receiver.behaviour = { status: 204, delayMs: 3_000 };
    const since = '2020-01-01T00:00:00.000Z';
    // Two clicks at once: one recovery, answered to both.
    const [a, b] = await Promise.all([
      post(s, `/endpoints/${s.endpointId}/recoveries`, { since }),
      post(s, `/endpoints/${s.endpointId}/recoveries`, { since }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 202]);
    expect(a.body.id).toBe(b.body.id);
    const id = a.body.id as number;
    const again = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since }).expect(200);
    expect(again.body).toMatchObject({ id, status: 'running', total: 150 });
    expect(
      await t.db.query('SELECT count(*)::int AS n FROM delivery_recovery WHERE endpoint_id = $1', [
        s.endpointId,
      ]),
    ).toEqual([{ n: 1 }]);

    // The first batch (100) is being sent to the slow receiver: cancel before the next.
    await eventually(async () => {
      expect((await recoveryRow(id)).processed).toBe(100);
    });
    const cancelled = await post(s, `/recoveries/${id}/cancel`).expect(200);
    expect(cancelled.body).toMatchObject({
      id,
      status: 'cancelled',
      total: 150,
      processed: 100,
      finished_at: expect.any(String),
    });
    // Idempotent: cancelling again answers the same and records nothing more.
    const twice = await post(s, `/recoveries/${id}/cancel`).expect(200);
    expect(twice.body).toEqual(cancelled.body);

    await eventually(async () => {
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM webhook_delivery WHERE id = ANY($1) AND status = 'succeeded'`,
        [ids],
      );
      expect(n).toBe(100);
    }, 30_000);
    await sleep(2_000); // polls of the worker since: no next batch
    expect(await recoveryRow(id)).toMatchObject({ status: 'cancelled', processed: 100 });
    expect(
      await t.db.query(
        `SELECT status, count(*)::int AS n FROM webhook_delivery WHERE id = ANY($1)
          GROUP BY status ORDER BY status`,
        [ids],
      ),
    ).toEqual([
      { status: 'failed', n: 50 },
      { status: 'succeeded', n: 100 },
    ]);
    expect(
      await t.db.query(
        `SELECT details FROM audit_log_entry
          WHERE account_id = $1 AND action = 'delivery.bulk_redeliver_cancel'`,
        [s.admin.accountId],
      ),
    ).toEqual([{ details: { recovery_id: id, processed: 100, total: 150 } }]);
    // A new start now begins a new recovery of what is left.
    const next = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since }).expect(202);
    expect(next.body).toMatchObject({ status: 'running', total: 50 });
  }, 90_000);

  it('finishes a recovery started where no worker runs, once a worker polls', async () => {
    const s = await setup();
    const ids = await failed(s, 2);
    s.receiver.behaviour = { status: 204 };
    // A process without a worker (an API-only process, or one whose worker died) starts it.
    const apiOnly = await startTestApp({ RUN_WORKER: 'false' });
    const signedIn = await signIn(apiOnly, s.admin);
    const res = await apiOnly
      .http()
      .post(`/dashboard/api/endpoints/${s.endpointId}/recoveries`)
      .set({ Cookie: signedIn.cookie, 'X-CSRF-Token': signedIn.csrf })
      .send({ since: '2020-01-01T00:00:00Z' })
      .expect(202);
    await apiOnly.close();
    await eventually(async () => {
      expect(await recoveryRow(res.body.id)).toMatchObject({ status: 'done', processed: 2 });
    }, 20_000);
    await eventually(async () => {
      expect(
        await t.db.query('SELECT status FROM webhook_delivery WHERE id = ANY($1)', [ids]),
      ).toEqual([{ status: 'succeeded' }, { status: 'succeeded' }]);
    });
  });

  it('touches only the deliveries that had failed when it started', async () => {
    const s = await setup();
    const counted = await failed(s, 2);
    // The worker's polls stop for a while, as if its process had died after the start.
    const runner = t.app.get(DeliveryRecoveryRunner);
    await runner.onModuleDestroy();
    try {
      const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
        since: '2020-01-01T00:00:00Z',
      }).expect(202);
      expect(res.body).toMatchObject({ status: 'running', total: 2, processed: 0 });
      const later = await failed(s, 1);
      s.receiver.behaviour = { status: 204 };
      runner.onApplicationBootstrap();
      await eventually(async () => {
        expect(await recoveryRow(res.body.id)).toMatchObject({
          status: 'done',
          total: 2,
          processed: 2,
        });
      }, 20_000);
      await eventually(async () => {
        expect(
          await t.db.query(
            'SELECT id::int, status, attempt_count FROM webhook_delivery WHERE endpoint_id = $1 ORDER BY id',
            [s.endpointId],
          ),
        ).toEqual([
          { id: counted[0], status: 'succeeded', attempt_count: 3 },
          { id: counted[1], status: 'succeeded', attempt_count: 3 },
          { id: later[0], status: 'failed', attempt_count: 2 },
        ]);
      });
    } finally {
      runner.onApplicationBootstrap();
    }
  });

  it('refuses another account’s endpoint or recovery (404) and a bad since (422), changing nothing', async () => {
    const s = await setup();
    const other = await setup();
    const { body: theirs } = await post(other, `/endpoints/${other.endpointId}/recoveries`, {
      since: '2020-01-01T00:00:00Z',
    }).expect(202);
    const count = async () =>
      (await t.db.query('SELECT count(*)::int AS n FROM delivery_recovery'))[0].n as number;
    const audits = async () =>
      (await t.db.query('SELECT count(*)::int AS n FROM audit_log_entry'))[0].n as number;
    const before = { recoveries: await count(), audits: await audits() };

    for (const res of [
      await get(s, `/endpoints/${other.endpointId}/recovery/preview?since=2020-01-01T00:00:00Z`),
      await get(s, `/endpoints/${other.endpointId}/recoveries`),
      await post(s, `/endpoints/${other.endpointId}/recoveries`, { since: '2020-01-01T00:00:00Z' }),
      await post(s, `/endpoints/2147483000/recoveries`, { since: '2020-01-01T00:00:00Z' }),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: {
          error: 'not_found',
          message: expect.stringMatching(/^webhook endpoint \d+ does not exist$/),
        },
      });
    }
    for (const path of [`/recoveries/${theirs.id}/cancel`, '/recoveries/2147483000/cancel']) {
      const res = await post(s, path);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { error: 'not_found', message: `recovery ${path.split('/')[2]} does not exist` },
      });
    }

    const future = new Date(Date.now() + 3_600_000).toISOString();
    const badQueries: Array<[string, RegExp]> = [
      ['', /since/],
      ['?since=yesterday', /^since must be an ISO 8601 date-time with a time zone$/],
      ['?since=2026-11-20T10:00:00', /^since must be an ISO 8601 date-time with a time zone$/],
      ['?since=2026-02-30T10:00:00Z', /^since must be an ISO 8601 date-time with a time zone$/],
      [`?since=${future}`, /^since must not be in the future$/],
      ['?since=2020-01-01T00:00:00Z&since=2020-01-02T00:00:00Z', /since/],
      ['?since=2020-01-01T00:00:00Z&limit=3', /limit/],
    ];
    for (const [query, message] of badQueries) {
      const res = await get(s, `/endpoints/${s.endpointId}/recovery/preview${query}`);
      expect({ query, status: res.status, error: res.body.error }).toEqual({
        query,
        status: 422,
        error: 'validation_failed',
      });
      expect(res.body.message).toMatch(message);
    }
    const badBodies: Array<[object, RegExp]> = [
      [{}, /since/],
      [{ since: 1_700_000_000 }, /since/],
      [{ since: 'last week' }, /^since must be an ISO 8601 date-time with a time zone$/],
      [{ since: future }, /^since must not be in the future$/],
      [{ since: '2020-01-01T00:00:00Z', total: 3 }, /total/],
    ];
    for (const [body, message] of badBodies) {
      const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({
        body,
        status: 422,
        error: 'validation_failed',
      });
      expect(res.body.message).toMatch(message);
    }
    // A disabled endpoint's deliveries would be dropped, not sent: refused.
    await t.db.query(
      `UPDATE webhook_endpoint SET is_enabled = false, disabled_reason = 'manual', disabled_at = now()
        WHERE id = $1`,
      [s.endpointId],
    );
    const disabled = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
      since: '2020-01-01T00:00:00Z',
    });
    expect({ status: disabled.status, error: disabled.body.error }).toEqual({
      status: 422,
      error: 'validation_failed',
    });
    expect({ recoveries: await count(), audits: await audits() }).toEqual(before);
  });
});
