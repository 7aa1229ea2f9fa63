import type { OpenAPIObject } from '@nestjs/swagger';
import { DeliveryRecoveryRunner } from '../src/delivery/worker/delivery-recovery.runner';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { eventually, sleep } from './support/eventually';
import { expectToMatchOpenApi } from './support/openapi';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { madeUpEvent } from './support/events';

/**
 * Bulk recovery of an endpoint's failed deliveries (docs/webhooks.md#bulk-recovery,
 * docs/dashboard.md#bulk-recovery): the preview's count, a recovery that sends every failed
 * delivery exactly once more through the normal pipeline, one running recovery per endpoint,
 * cancelling, a recovery left by a process without a worker, and the routes' refusals; then the
 * same machinery replaying what an endpoint missed while disabled (scope `missed`, below). A
 * short retry schedule ('1s') makes deliveries fail for good quickly while the receiver refuses.
 */
const API = '/dashboard/api';
const PREVIEW = '/dashboard/api/endpoints/{endpoint_id}/recovery/preview';
const RECOVERIES = '/dashboard/api/endpoints/{endpoint_id}/recoveries';
const ENDPOINT = '/dashboard/api/endpoints/{endpoint_id}';

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
      Array.from({ length: n }, (_, i) =>
        madeUpEvent('lead.created', { id: i, campaign_id: s.campaignId }),
      ),
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
    expect(res.body).toEqual({ since, failed_count: 2, retrying_count: 0, skipped_count: 0 });
    const all = await get(
      s,
      `/endpoints/${s.endpointId}/recovery/preview?since=2020-01-01T00:00:00%2B02:00`,
    ).expect(200);
    expect(all.body).toEqual({
      since: '2019-12-31T22:00:00.000Z',
      failed_count: 5,
      retrying_count: 0,
      skipped_count: 0,
    });
    // Another endpoint's failures and deliveries that did not fail are not counted.
    const other = await setup();
    expect(
      (
        await get(other, `/endpoints/${other.endpointId}/recovery/preview?since=${since}`).expect(
          200,
        )
      ).body,
    ).toEqual({ since, failed_count: 0, retrying_count: 0, skipped_count: 0 });
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
      scope: 'failed',
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

  it('counts and sends only the deliveries it covered when it started: one that fails while it runs never joins it, and none is sent twice', async () => {
    const s = await setup();
    // Every other delivery's receiver answers slowly: its first attempt is under way (pending,
    // no attempt counted, so not covered) when the recovery starts, and it fails afterwards,
    // with an id between the covered ones.
    s.receiver.behaviour = (i) => {
      const { data } = JSON.parse(s.receiver.received[i].body) as { data: { slow: boolean } };
      return data.slow ? { status: 500, delayMs: 2_500 } : { status: 500 };
    };
    const runner = t.app.get(DeliveryRecoveryRunner);
    await runner.onModuleDestroy();
    try {
      const recorded = await t.app.get(WebhookEventPublisher).publish(
        s.campaignId,
        Array.from({ length: 5 }, (_, i) =>
          madeUpEvent('lead.created', { id: i, campaign_id: s.campaignId, slow: i % 2 === 1 }),
        ),
      );
      const rows: Array<{ id: number; event_id: string }> = await t.db.query(
        'SELECT id::int, event_id FROM webhook_delivery WHERE id = ANY($1) ORDER BY id',
        [recorded.deliveries.map((d) => d.id)],
      );
      const ids = rows.map((row) => row.id);
      const webhookIdOf = new Map(rows.map((row) => [row.id, row.event_id]));
      const covered = ids.filter((_, i) => i % 2 === 0);
      const later = ids.filter((_, i) => i % 2 === 1);
      const statuses = () =>
        t.db.query(
          `SELECT id::int, status, attempt_count FROM webhook_delivery WHERE id = ANY($1) ORDER BY id`,
          [ids],
        );
      await eventually(async () => {
        expect(await statuses()).toEqual(
          ids.map((id) =>
            covered.includes(id)
              ? { id, status: 'failed', attempt_count: 2 }
              : { id, status: 'pending', attempt_count: 0 },
          ),
        );
      }, 20_000);
      const since = '2020-01-01T00:00:00Z';
      const preview = await get(s, `/endpoints/${s.endpointId}/recovery/preview?since=${since}`);
      expect(preview.body).toMatchObject({ failed_count: 3, retrying_count: 0 });
      const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since }).expect(202);
      expect(res.body).toMatchObject({ status: 'running', total: 3, processed: 0 });
      // The slow ones fail for good while the recovery waits for a worker.
      await eventually(async () => {
        expect(await statuses()).toEqual(
          ids.map((id) => ({ id, status: 'failed', attempt_count: 2 })),
        );
      }, 20_000);
      s.receiver.behaviour = { status: 204 };
      const before = perWebhookId(s.receiver);
      runner.onApplicationBootstrap();
      await eventually(async () => {
        expect(await recoveryRow(res.body.id)).toMatchObject({
          status: 'done',
          total: 3,
          processed: 3,
        });
      }, 20_000);
      await eventually(async () => {
        expect(await statuses()).toEqual(
          ids.map((id) =>
            covered.includes(id)
              ? { id, status: 'succeeded', attempt_count: 3 }
              : { id, status: 'failed', attempt_count: 2 },
          ),
        );
      });
      await sleep(1_500); // a second send, if any job were left to make one
      const listed = await get(s, `/endpoints/${s.endpointId}/recoveries`).expect(200);
      expect(listed.body[0]).toMatchObject({
        id: res.body.id,
        status: 'done',
        total: 3,
        processed: 3,
      });
      // Each covered delivery was sent exactly once more; the later failures not at all.
      const after = perWebhookId(s.receiver);
      const sentAgain = (id: number) =>
        (after.get(webhookIdOf.get(id)!) ?? 0) - (before.get(webhookIdOf.get(id)!) ?? 0);
      expect(ids.map(sentAgain)).toEqual(ids.map((id) => (covered.includes(id) ? 1 : 0)));
      expect(later).toHaveLength(2);
      // Its fixed list of deliveries is gone with its end.
      const [{ n }] = await t.db.query(
        'SELECT count(*)::int AS n FROM delivery_recovery_delivery WHERE recovery_id = $1',
        [res.body.id],
      );
      expect(n).toBe(0);
    } finally {
      runner.onApplicationBootstrap();
    }
  }, 60_000);

  it('refuses another account’s endpoint or recovery (404), a bad since (422) and a disabled endpoint (409), changing nothing', async () => {
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
    // A disabled endpoint's deliveries would be dropped, not sent: refused as a state conflict.
    await t.db.query(
      `UPDATE webhook_endpoint SET is_enabled = false, disabled_reason = 'manual', disabled_at = now()
        WHERE id = $1`,
      [s.endpointId],
    );
    const disabled = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
      since: '2020-01-01T00:00:00Z',
    });
    expect({ status: disabled.status, error: disabled.body.error }).toEqual({
      status: 409,
      error: 'conflict',
    });
    expect({ recoveries: await count(), audits: await audits() }).toEqual(before);
  });

  /**
   * Replaying what an endpoint missed while it was disabled, a recovery with the scope `missed`
   * (docs/webhooks.md#replaying-missed-deliveries, docs/dashboard.md#replaying-missed-deliveries):
   * events recorded while it is disabled leave `skipped` deliveries; once an admin enables it
   * again, the endpoint view keeps when and why it had been disabled, the preview counts the
   * skipped and failed deliveries since then, and the replay sends them through the worker to
   * the real local receiver, one running per endpoint, recorded in the audit log, with the
   * delivery ledger's identity holding throughout.
   */
  describe('replaying missed deliveries (scope missed)', () => {
    let doc: OpenAPIObject;
    beforeAll(async () => {
      doc = (await t.http().get(`${API}/docs-json`).expect(200)).body as OpenAPIObject;
    });

    /**
     * {@link setup}, with a receiver that answers each event as its `data.want` says: `ok` 204,
     * `gone` 410, anything else 500.
     */
    async function replaySetup(): Promise<Setup> {
      const s = await setup();
      s.receiver.behaviour = (i) => {
        const body = JSON.parse(s.receiver.received[i].body) as { data: { want?: string } };
        const { want } = body.data;
        return { status: want === 'ok' ? 204 : want === 'gone' ? 410 : 500 };
      };
      return s;
    }

    /**
     * Records one `lead.created` event per `wants` entry; the ids of their deliveries to the
     * endpoint, skipped ones included, in order.
     */
    async function publish(s: Setup, wants: string[]): Promise<number[]> {
      const recorded = await t.app.get(WebhookEventPublisher).publish(
        s.campaignId,
        wants.map((want, i) =>
          madeUpEvent('lead.created', { id: i, campaign_id: s.campaignId, want }),
        ),
      );
      const rows: Array<{ id: number }> = await t.db.query(
        'SELECT id::int FROM webhook_delivery WHERE event_id = ANY($1) AND endpoint_id = $2 ORDER BY id',
        [recorded.events.map((e) => e.id), s.endpointId],
      );
      return rows.map((r) => r.id);
    }

    const patch = (s: Setup, body: object) =>
      t
        .http()
        .patch(`${API}/endpoints/${s.endpointId}`)
        .set({ Cookie: s.session.cookie, 'X-CSRF-Token': s.session.csrf })
        .send(body);

    type Row = { id: number; status: string; attempt_count: number; next_attempt_at: Date | null };
    const deliveries = async (s: Setup): Promise<Row[]> =>
      t.db.query(
        `SELECT id::int, status, attempt_count, next_attempt_at FROM webhook_delivery
          WHERE endpoint_id = $1 ORDER BY id`,
        [s.endpointId],
      );
    const statusOf = async (ids: number[]): Promise<string[]> =>
      (
        await t.db.query('SELECT status FROM webhook_delivery WHERE id = ANY($1) ORDER BY id', [
          ids,
        ])
      ).map((r: { status: string }) => r.status);

    /** Requests the receiver got for each of the endpoint's deliveries, by delivery id. */
    const sentPerDelivery = async (s: Setup) => {
      const sent = perWebhookId(s.receiver);
      const rows: Array<{ id: number; event_id: string }> = await t.db.query(
        'SELECT id::int, event_id FROM webhook_delivery WHERE endpoint_id = $1',
        [s.endpointId],
      );
      return new Map(rows.map((row) => [row.id, sent.get(row.event_id)]));
    };

    /**
     * The endpoint's ledger for today (`days=1`), checked against the document, against its rows
     * of `webhook_delivery`, and for the identity matched = delivered + failed + pending + skipped.
     */
    async function ledgerHolds(s: Setup) {
      const res = await get(s, `/endpoints/${s.endpointId}/ledger?days=1`).expect(200);
      expectToMatchOpenApi(doc, 'get', '/dashboard/api/endpoints/{endpoint_id}/ledger', res);
      const [day] = res.body.days as Array<Record<string, number>>;
      expect(day.matched).toBe(day.delivered + day.failed + day.pending + day.skipped);
      const [db] = await t.db.query(
        `SELECT count(*)::int AS matched,
                count(*) FILTER (WHERE status = 'succeeded')::int AS delivered,
                count(*) FILTER (WHERE status = 'failed')::int AS failed,
                count(*) FILTER (WHERE status = 'pending')::int AS pending,
                count(*) FILTER (WHERE status = 'pending' AND throttled_until >= next_attempt_at)::int
                  AS throttled,
                count(*) FILTER (WHERE status IN ('skipped', 'dropped'))::int AS skipped
           FROM webhook_delivery WHERE endpoint_id = $1`,
        [s.endpointId],
      );
      // No payload filter here: nothing filtered out (docs/webhooks.md#payload-filters).
      expect({ ...day, day: undefined }).toEqual({ ...db, day: undefined, filtered: 0 });
      return day;
    }

    const replayRow = async (id: number) =>
      (
        await t.db.query(
          `SELECT endpoint_id, scope, since, status, total, processed, finished_at
             FROM delivery_recovery WHERE id = $1`,
          [id],
        )
      )[0];

    it('offers, after an admin enables it again, the skipped and failed deliveries since it was disabled, and replays each once through the worker', async () => {
      const s = await replaySetup();
      // Before the endpoint is disabled: one delivery fails for good. It is not part of the replay.
      const [before] = await publish(s, ['no']);
      await eventually(async () => expect(await statusOf([before])).toEqual(['failed']), 20_000);

      // An admin disables it; events recorded meanwhile leave skipped deliveries, never queued.
      const disabled = await patch(s, { enabled: false }).expect(200);
      expect(disabled.body).toMatchObject({ is_enabled: false, disabled_reason: 'manual' });
      const disabledAt = disabled.body.disabled_at as string;
      expect(disabled.body).toMatchObject({
        last_disabled_at: disabledAt,
        last_disabled_reason: 'manual',
      });
      const skipped = await publish(s, ['ok', 'ok', 'ok']);
      const skippedRows = (await deliveries(s)).filter((d) => skipped.includes(d.id));
      expect(
        skippedRows.map(({ status, attempt_count, next_attempt_at }) => ({
          status,
          attempt_count,
          next_attempt_at,
        })),
      ).toEqual(Array(3).fill({ status: 'skipped', attempt_count: 0, next_attempt_at: null }));

      // Enabled again: disabled_at is cleared, and kept as last_disabled_at.
      const enabled = await patch(s, { enabled: true }).expect(200);
      expectToMatchOpenApi(doc, 'patch', ENDPOINT, enabled);
      expect(enabled.body).toMatchObject({
        is_enabled: true,
        disabled_reason: null,
        disabled_at: null,
        last_disabled_at: disabledAt,
        last_disabled_reason: 'manual',
      });
      const view = await get(s, `/endpoints/${s.endpointId}`).expect(200);
      expectToMatchOpenApi(doc, 'get', ENDPOINT, view);
      expect(view.body).toMatchObject({ last_disabled_at: disabledAt });
      expect(
        await t.db.query(
          'SELECT last_disabled_at, last_disabled_reason FROM webhook_endpoint WHERE id = $1',
          [s.endpointId],
        ),
      ).toEqual([{ last_disabled_at: new Date(disabledAt), last_disabled_reason: 'manual' }]);

      // The receiver still refuses the first event after the endpoint was enabled: it fails too.
      const [after] = await publish(s, ['no']);
      await eventually(async () => expect(await statusOf([after])).toEqual(['failed']), 20_000);
      await ledgerHolds(s);

      // The count first: three skipped and one failed since it was disabled.
      const preview = await get(
        s,
        `/endpoints/${s.endpointId}/recovery/preview?since=${disabledAt}`,
      ).expect(200);
      expectToMatchOpenApi(doc, 'get', PREVIEW, preview);
      expect(preview.body).toEqual({
        since: disabledAt,
        failed_count: 1,
        retrying_count: 0,
        skipped_count: 3,
      });

      // The receiver works now, slowly enough for a second start to find the replay running.
      s.receiver.behaviour = { status: 204, delayMs: 1_000 };
      const received = s.receiver.received.length;
      const [first, second] = await Promise.all([
        post(s, `/endpoints/${s.endpointId}/recoveries`, { since: disabledAt, scope: 'missed' }),
        post(s, `/endpoints/${s.endpointId}/recoveries`, { since: disabledAt, scope: 'missed' }),
      ]);
      const started = first.status === 202 ? first : second;
      for (const res of [first, second]) expectToMatchOpenApi(doc, 'post', RECOVERIES, res);
      expect([first.status, second.status].sort()).toEqual([200, 202]);
      expect(started.body).toEqual({
        id: expect.any(Number),
        endpoint_id: s.endpointId,
        scope: 'missed',
        since: disabledAt,
        status: 'running',
        total: 4,
        processed: 0,
        created_at: expect.any(String),
        finished_at: null,
      });
      const id = started.body.id as number;
      expect(second.body.id).toBe(id);
      // A third start while it runs answers the same replay, and starts nothing.
      const third = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
        since: disabledAt,
        scope: 'missed',
      }).expect(200);
      expect(third.body).toMatchObject({ id, scope: 'missed', status: 'running', total: 4 });
      expect(
        await t.db.query(
          'SELECT count(*)::int AS n FROM delivery_recovery WHERE endpoint_id = $1',
          [s.endpointId],
        ),
      ).toEqual([{ n: 1 }]);

      // The skipped deliveries become pending, due now, and the worker attempts them.
      await eventually(async () => {
        const rows = (await deliveries(s)).filter((d) => skipped.includes(d.id));
        expect(rows.every((d) => d.status !== 'skipped')).toBe(true);
      });
      await eventually(async () => {
        expect(await replayRow(id)).toEqual({
          endpoint_id: s.endpointId,
          scope: 'missed',
          since: new Date(disabledAt),
          status: 'done',
          total: 4,
          processed: 4,
          finished_at: expect.any(Date),
        });
      }, 20_000);
      await sleep(1_500); // a retry, if one were due, would come 1 s after its attempt

      // Each replayed delivery reached the receiver exactly once more and succeeded; the one that
      // failed before the endpoint was disabled was left alone.
      expect(s.receiver.received.length).toBe(received + 4);
      const sent = await sentPerDelivery(s);
      expect(
        (await deliveries(s)).map((d) => ({
          id: d.id,
          status: d.status,
          attempts: d.attempt_count,
          sent: sent.get(d.id),
        })),
      ).toEqual([
        { id: before, status: 'failed', attempts: 2, sent: 2 },
        ...skipped.map((d) => ({ id: d, status: 'succeeded', attempts: 1, sent: 1 })),
        { id: after, status: 'succeeded', attempts: 3, sent: 3 },
      ]);
      expect(await ledgerHolds(s)).toMatchObject({
        matched: 5,
        delivered: 4,
        failed: 1,
        pending: 0,
        skipped: 0,
      });

      const list = await get(s, `/endpoints/${s.endpointId}/recoveries`).expect(200);
      expectToMatchOpenApi(doc, 'get', RECOVERIES, list);
      expect(list.body).toEqual([
        { ...started.body, status: 'done', processed: 4, finished_at: expect.any(String) },
      ]);
      // One audit entry, for the start (the answers of the running replay record nothing).
      expect(
        await t.db.query(
          `SELECT actor_type, actor_user_id, object_type, object_id, details FROM audit_log_entry
            WHERE account_id = $1 AND action = 'delivery.replay_missed'`,
          [s.admin.accountId],
        ),
      ).toEqual([
        {
          actor_type: 'user',
          actor_user_id: s.admin.id,
          object_type: 'endpoint',
          object_id: String(s.endpointId),
          details: { recovery_id: id, since: disabledAt, total: 4 },
        },
      ]);
    }, 90_000);

    it('keeps a 410 Gone’s reason, and replays since an earlier time its failed and dropped deliveries too', async () => {
      const s = await replaySetup();
      const start = ((await t.db.query('SELECT now() AS now'))[0].now as Date).toISOString();
      // The first answers 410 (the endpoint is disabled `gone`); the second is refused with 500,
      // and its retry is dropped because the endpoint is disabled by then.
      const [gone, dropped] = await publish(s, ['gone', 'no']);
      await eventually(
        async () => expect(await statusOf([gone, dropped])).toEqual(['failed', 'dropped']),
        20_000,
      );
      const skipped = await publish(s, ['ok', 'ok']);
      expect(await statusOf(skipped)).toEqual(['skipped', 'skipped']);
      const [{ disabled_at: disabledAt }] = await t.db.query(
        `SELECT disabled_at FROM webhook_endpoint WHERE id = $1 AND disabled_reason = 'gone'`,
        [s.endpointId],
      );

      const enabled = await patch(s, { enabled: true }).expect(200);
      const since = (disabledAt as Date).toISOString();
      expect(enabled.body).toMatchObject({ last_disabled_at: since, last_disabled_reason: 'gone' });
      // Since it was disabled: the two skipped. Since before the 410: the failed and dropped too.
      expect(
        (await get(s, `/endpoints/${s.endpointId}/recovery/preview?since=${since}`).expect(200))
          .body,
      ).toEqual({ since, failed_count: 0, retrying_count: 0, skipped_count: 2 });
      expect(
        (await get(s, `/endpoints/${s.endpointId}/recovery/preview?since=${start}`).expect(200))
          .body,
      ).toEqual({ since: start, failed_count: 1, retrying_count: 0, skipped_count: 3 });
      // A bulk recovery (scope `failed`, the default) would send the failed one only.
      s.receiver.behaviour = { status: 204 };
      const res = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
        since: start,
        scope: 'missed',
      }).expect(202);
      expect(res.body).toMatchObject({ scope: 'missed', total: 4 });
      await eventually(async () => {
        expect(await replayRow(res.body.id)).toMatchObject({ status: 'done', processed: 4 });
      }, 20_000);
      await eventually(async () =>
        expect(await statusOf([gone, dropped, ...skipped])).toEqual(Array(4).fill('succeeded')),
      );
      await ledgerHolds(s);
    }, 60_000);

    it('answers a running bulk recovery to a replay start, and refuses a bad scope or a disabled endpoint', async () => {
      const s = await replaySetup();
      const failed = await publish(s, Array(120).fill('no'));
      await eventually(
        async () => expect(new Set(await statusOf(failed))).toEqual(new Set(['failed'])),
        30_000,
      );
      s.receiver.behaviour = { status: 204, delayMs: 2_000 };
      const since = '2020-01-01T00:00:00.000Z';
      const bulk = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since }).expect(202);
      expect(bulk.body).toMatchObject({ scope: 'failed', total: 120 });
      // One recovery runs per endpoint, whatever its scope: the replay start answers it.
      const replay = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
        since,
        scope: 'missed',
      }).expect(200);
      expect(replay.body).toMatchObject({ id: bulk.body.id, scope: 'failed', status: 'running' });
      await post(s, `/recoveries/${bulk.body.id}/cancel`).expect(200);

      const audits = async () =>
        (await t.db.query('SELECT count(*)::int AS n FROM audit_log_entry'))[0].n as number;
      const recoveries = async () =>
        (await t.db.query('SELECT count(*)::int AS n FROM delivery_recovery'))[0].n as number;
      const before = { audits: await audits(), recoveries: await recoveries() };
      for (const scope of ['skipped', '', 'MISSED', 1, null]) {
        const bad = await post(s, `/endpoints/${s.endpointId}/recoveries`, { since, scope });
        expect({ scope, status: bad.status, body: bad.body }).toEqual({
          scope,
          status: 422,
          body: {
            error: 'validation_failed',
            message:
              typeof scope === 'number'
                ? 'scope must be a string'
                : 'scope must be one of failed, missed, transformation_errors',
          },
        });
      }
      await t.db.query(
        `UPDATE webhook_endpoint SET is_enabled = false, disabled_reason = 'manual', disabled_at = now()
          WHERE id = $1`,
        [s.endpointId],
      );
      const disabled = await post(s, `/endpoints/${s.endpointId}/recoveries`, {
        since,
        scope: 'missed',
      });
      expect({ status: disabled.status, body: disabled.body }).toEqual({
        status: 409,
        body: {
          error: 'conflict',
          message: `webhook endpoint ${s.endpointId} is disabled: enable it before replaying its missed deliveries`,
        },
      });
      expect({ audits: await audits(), recoveries: await recoveries() }).toEqual(before);
    }, 60_000);
  });
});
