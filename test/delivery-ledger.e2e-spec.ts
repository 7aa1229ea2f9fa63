/**
 * The delivery ledger (docs/dashboard.md#delivery-ledger): deliveries made to end in each state
 * through the real worker (succeeded; failed for good on a one-retry schedule; dropped by
 * disabling the endpoint before its retry; skipped while it is disabled; pending: committed,
 * not queued yet, the sweeper an hour away), then counted per UTC day through
 * `GET /dashboard/api/endpoints/{endpoint_id}/ledger` and checked against the rows of
 * `webhook_delivery`, the identity matched = delivered + failed + pending + skipped on every
 * day, the dashboard's OpenAPI document, ownership and bad `days`.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import type { LedgerDay } from '../src/delivery/analytics/delivery-ledger';
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { expectToMatchOpenApi } from './support/openapi';
import { startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { madeUpEvent } from './support/events';

const API = '/dashboard/api';
const LEDGER = '/dashboard/api/endpoints/{endpoint_id}/ledger';
const MISSING_ID = 2_147_483_000;
const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of the UTC day `n` days before `day`. */
const daysBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);

describe('Delivery ledger (docs/dashboard.md#delivery-ledger)', () => {
  let t: TestApp;
  let doc: OpenAPIObject;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({
      // Two attempts, one second apart: time to disable an endpoint between them.
      WEBHOOK_RETRY_SCHEDULE: '1s',
      // The sweeper runs at start, then not for an hour: a delivery committed and not queued
      // stays pending for the whole test.
      WEBHOOK_SWEEP_INTERVAL_MS: '3600000',
      RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
      // The ledger never reaches past retention (delivery-retention.e2e-spec.ts): keep 90 days
      // so that its longest span is tested here.
      DELIVERY_RETENTION_DAYS: '90',
    });
    doc = (await t.http().get(`${API}/docs-json`).expect(200)).body as OpenAPIObject;
    receiver = await new WebhookReceiver().start();
    // Each event says how its receiver answers: `ok` 204, anything else 500.
    receiver.behaviour = (i) => ({
      status:
        (JSON.parse(receiver.received[i].body) as { data: { want: string } }).data.want === 'ok'
          ? 204
          : 500,
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  /** A signed-in user of a new account (or of `accountId`) with a campaign and an endpoint. */
  async function customer(role: 'admin' | 'viewer' = 'admin', accountId?: number) {
    const account = accountId ?? (await t.given.account());
    const campaignId = await t.given.campaign(account);
    const { id: endpointId } = await t.given.endpoint(campaignId, receiver.url, ['call.completed']);
    const session = await signIn(t, await givenUser(t, role, account));
    return { accountId: account, campaignId, endpointId, session };
  }

  /** `GET …/ledger` as `session`, with the raw query string `query`; checked against the document. */
  async function ledger(session: SignedIn, endpointId: number, query = '') {
    const res = await t
      .http()
      .get(`${API}/endpoints/${endpointId}/ledger${query}`)
      .set('Cookie', session.cookie);
    expectToMatchOpenApi(doc, 'get', LEDGER, res);
    return res;
  }

  const statuses = (endpointId: number): Promise<Array<{ id: number; status: string }>> =>
    t.db
      .query('SELECT id, status FROM webhook_delivery WHERE endpoint_id = $1 ORDER BY id', [
        endpointId,
      ])
      .then((rows: Array<{ id: string; status: string }>) =>
        rows.map((row) => ({ id: Number(row.id), status: row.status })),
      );

  /** The ledger worked out from the rows themselves: UTC day of `created_at` → counts. */
  async function countedFromRows(endpointId: number): Promise<Map<string, LedgerDay>> {
    const rows: Array<{ day: string; status: string }> = await t.db.query(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, status
         FROM webhook_delivery WHERE endpoint_id = $1`,
      [endpointId],
    );
    const byDay = new Map<string, LedgerDay>();
    for (const { day, status } of rows) {
      const d = byDay.get(day) ?? {
        day,
        matched: 0,
        delivered: 0,
        failed: 0,
        pending: 0,
        throttled: 0,
        skipped: 0,
        filtered: 0,
      };
      d.matched += 1;
      if (status === 'succeeded') d.delivered += 1;
      else if (status === 'failed') d.failed += 1;
      else if (status === 'pending') d.pending += 1;
      else if (status === 'skipped' || status === 'dropped') d.skipped += 1;
      byDay.set(day, d);
    }
    return byDay;
  }

  /** Every day consecutive from today (UTC) backwards, and the identity on each. */
  function expectWellFormed(days: LedgerDay[], count: number, today: string): void {
    expect(days).toHaveLength(count);
    days.forEach((d, i) => {
      expect(d.day).toBe(daysBefore(today, i));
      expect(d.matched).toBe(d.delivered + d.failed + d.pending + d.skipped);
    });
  }

  const emit = (campaignId: number, want: string) =>
    t.app.get(WebhookEventPublisher).publish(campaignId, [madeUpEvent('call.completed', { want })]);

  it('counts each state per UTC day, newest first, with empty days as zeros, as the rows say', async () => {
    const me = await customer();
    const endpoints = t.app.get(WebhookEndpointAdmin);

    // Delivered (twice) and failed for good (two attempts, both 500).
    const ok1 = await emit(me.campaignId, 'ok');
    await emit(me.campaignId, 'ok');
    const failed = await emit(me.campaignId, 'fail');
    await eventually(async () =>
      expect((await statuses(me.endpointId)).map((d) => d.status)).toEqual([
        'succeeded',
        'succeeded',
        'failed',
      ]),
    );

    // Dropped: the endpoint is disabled after the first attempt, before the retry.
    const seen = receiver.received.length;
    await emit(me.campaignId, 'fail');
    await eventually(async () => expect(receiver.received.length).toBe(seen + 1));
    await endpoints.update(me.endpointId, { enabled: false });
    await eventually(async () =>
      expect((await statuses(me.endpointId)).at(-1)?.status).toBe('dropped'),
    );

    // Skipped (twice): recorded while the endpoint is disabled, never sent.
    const skipped1 = await emit(me.campaignId, 'ok');
    await emit(me.campaignId, 'ok');
    expect(skipped1.events[0]).toMatchObject({ deliveries: 0, skipped: 1 });
    await endpoints.update(me.endpointId, { enabled: true });

    // Pending: committed, not queued (as while Redis is unreachable); no sweep for an hour.
    const pending = await t.db.transaction((manager) =>
      t.app
        .get(WebhookEventPublisher)
        .record(manager, me.campaignId, [madeUpEvent('call.completed', { want: 'ok' })]),
    );
    expect(pending.deliveries).toHaveLength(1);

    const rows = await statuses(me.endpointId);
    expect(rows.map((d) => d.status)).toEqual([
      'succeeded',
      'succeeded',
      'failed',
      'dropped',
      'skipped',
      'skipped',
      'pending',
    ]);
    expect(receiver.received.length).toBe(seen + 1); // nothing sent since the drop
    const attempts = await t.db.query(
      `SELECT d.status, count(a.id)::int AS attempts
         FROM webhook_delivery d LEFT JOIN webhook_delivery_attempt a ON a.delivery_id = d.id
        WHERE d.endpoint_id = $1 GROUP BY d.id, d.status ORDER BY d.id`,
      [me.endpointId],
    );
    expect(attempts.map((a: { attempts: number }) => a.attempts)).toEqual([1, 1, 2, 1, 0, 0, 0]);

    // Today, in PostgreSQL's clock, as the deliveries were stamped (a test run across midnight
    // UTC still compares like with like).
    const [{ day: created }] = await t.db.query(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day
         FROM webhook_delivery WHERE id = $1`,
      [rows[0].id],
    );

    // Today alone: all seven.
    let res = await ledger(me.session, me.endpointId, '?days=1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      days: [
        {
          day: created,
          matched: 7,
          delivered: 2,
          failed: 1,
          pending: 1,
          throttled: 0,
          skipped: 3,
          filtered: 0,
        },
      ],
      // Not throttled: no limits, nothing waits on them.
      throttle: { max_deliveries_per_second: null, max_in_flight: null, waiting: 0 },
    });

    // Spread over days: one success and one skipped delivery yesterday, the failure 40 days ago.
    const ids = {
      ok1: ok1.deliveries[0].id,
      skipped1: rows[4].id,
      failed: failed.deliveries[0].id,
    };
    await t.db.query(
      `UPDATE webhook_delivery SET created_at = created_at - interval '1 day' WHERE id = ANY($1::bigint[])`,
      [[ids.ok1, ids.skipped1]],
    );
    await t.db.query(
      `UPDATE webhook_delivery SET created_at = created_at - interval '40 days' WHERE id = $1`,
      [ids.failed],
    );
    const zero = {
      matched: 0,
      delivered: 0,
      failed: 0,
      pending: 0,
      throttled: 0,
      skipped: 0,
      filtered: 0,
    };
    const expected = new Map<string, LedgerDay>([
      [
        created,
        {
          day: created,
          matched: 4,
          delivered: 1,
          failed: 0,
          pending: 1,
          throttled: 0,
          skipped: 2,
          filtered: 0,
        },
      ],
      [
        daysBefore(created, 1),
        {
          day: daysBefore(created, 1),
          matched: 2,
          delivered: 1,
          failed: 0,
          pending: 0,
          throttled: 0,
          skipped: 1,
          filtered: 0,
        },
      ],
      [
        daysBefore(created, 40),
        {
          day: daysBefore(created, 40),
          matched: 1,
          delivered: 0,
          failed: 1,
          pending: 0,
          throttled: 0,
          skipped: 0,
          filtered: 0,
        },
      ],
    ]);
    expect(await countedFromRows(me.endpointId)).toEqual(expected);

    // The default: 30 days, so the failure 40 days ago is outside.
    res = await ledger(me.session, me.endpointId);
    expect(res.status).toBe(200);
    const today = res.body.days[0].day as string;
    expectWellFormed(res.body.days, 30, today);
    for (const d of res.body.days as LedgerDay[]) {
      expect(d).toEqual(expected.get(d.day) ?? { day: d.day, ...zero });
    }
    expect(res.body.days.filter((d: LedgerDay) => d.matched > 0)).toHaveLength(2);

    // 90 days: every delivery, each on its day, every other day all zeros.
    res = await ledger(me.session, me.endpointId, '?days=90');
    expectWellFormed(res.body.days, 90, today);
    for (const d of res.body.days as LedgerDay[]) {
      expect(d).toEqual(expected.get(d.day) ?? { day: d.day, ...zero });
    }
    const total = (res.body.days as LedgerDay[]).reduce(
      (sum, d) => ({
        matched: sum.matched + d.matched,
        delivered: sum.delivered + d.delivered,
        failed: sum.failed + d.failed,
        pending: sum.pending + d.pending,
        throttled: sum.throttled + d.throttled,
        skipped: sum.skipped + d.skipped,
        filtered: sum.filtered + d.filtered,
      }),
      zero,
    );
    expect(total).toEqual({
      matched: 7,
      delivered: 2,
      failed: 1,
      pending: 1,
      throttled: 0,
      skipped: 3,
      filtered: 0,
    });

    // The domain service answers the same (the CLI and the dashboard share it).
    expect(await t.app.get(DeliveryService).deliveryLedger(me.endpointId, 90)).toEqual(res.body);

    // Reading changed nothing; the pending delivery is still there to be sent.
    expect((await statuses(me.endpointId)).map((d) => d.status)).toEqual(rows.map((d) => d.status));
    await t.app.get(WebhookEventPublisher).dispatch(pending);
    await eventually(async () => {
      const after = await ledger(me.session, me.endpointId, '?days=1');
      expect(after.body.days[0]).toMatchObject({ matched: 4, delivered: 2, pending: 0 });
    });
  });

  it('is empty for an endpoint without deliveries, and open to viewers', async () => {
    const admin = await customer();
    const viewer = await signIn(t, await givenUser(t, 'viewer', admin.accountId));
    const res = await ledger(viewer, admin.endpointId, '?days=3');
    expect(res.status).toBe(200);
    expectWellFormed(res.body.days, 3, res.body.days[0].day);
    for (const d of res.body.days) {
      expect(d).toEqual({
        day: d.day,
        matched: 0,
        delivered: 0,
        failed: 0,
        pending: 0,
        throttled: 0,
        skipped: 0,
        filtered: 0,
      });
    }
  });

  it('answers 404 for another account’s endpoint, as for one that does not exist, whatever the days', async () => {
    const me = await customer();
    const them = await customer();
    await emit(them.campaignId, 'ok');
    // An undocumented parameter is refused before the endpoint is looked up: the same 422 for
    // theirs, a missing one and one's own (docs/dashboard.md#requests-and-answers).
    for (const endpointId of [them.endpointId, MISSING_ID, me.endpointId]) {
      const bogus = await ledger(me.session, endpointId, '?bogus=1');
      expect({ endpointId, status: bogus.status, body: bogus.body }).toEqual({
        endpointId,
        status: 422,
        body: { error: 'validation_failed', message: 'bogus is not a known field' },
      });
    }
    for (const query of ['', '?days=7', '?days=abc']) {
      const theirs = await ledger(me.session, them.endpointId, query);
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual({
        error: 'not_found',
        message: `webhook endpoint ${them.endpointId} does not exist`,
      });
      const missing = await ledger(me.session, MISSING_ID, query);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({
        error: 'not_found',
        message: `webhook endpoint ${MISSING_ID} does not exist`,
      });
    }
    // Their own answer is there all along.
    const own = await ledger(them.session, them.endpointId, '?days=1');
    expect(own.body.days[0]).toMatchObject({ matched: 1 });
  });

  it('refuses a bad days with 400, an unknown or repeated parameter with 422, in the envelope', async () => {
    const me = await customer();
    for (const days of ['0', '91', '100', '-1', '1.5', 'abc', '07', '', '%2B5', '1e1']) {
      const res = await ledger(me.session, me.endpointId, `?days=${days}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'bad_request',
        message: 'days must be an integer from 1 to 90',
      });
    }
    const unknown = await ledger(me.session, me.endpointId, '?days=7&limit=5');
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      error: 'validation_failed',
      message: expect.stringContaining('limit is not a known field'),
    });
    const twice = await ledger(me.session, me.endpointId, '?days=7&days=8');
    expect(twice.status).toBe(422);
    expect(twice.body.error).toBe('validation_failed');
    expect(twice.body.message).toMatch(/days/);
    // A path id that is not one is the usual 400; without a session, 401.
    const badId = await t
      .http()
      .get(`${API}/endpoints/abc/ledger`)
      .set('Cookie', me.session.cookie);
    expect(badId.status).toBe(400);
    expect(badId.body).toEqual({
      error: 'bad_request',
      message: 'endpoint_id must be a positive integer',
    });
    const anonymous = await t.http().get(`${API}/endpoints/${me.endpointId}/ledger`);
    expect(anonymous.status).toBe(401);
  });
});
