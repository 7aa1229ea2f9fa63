import { startTestApp, uploadBody, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { eventually } from './support/eventually';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { AttemptLog } from '../src/delivery/attempts/attempt-log.service';
import { HISTOGRAM_RELATIVE_ERROR } from '../src/delivery/analytics/delivery-rollup';
import type { DeliveryStats } from '../src/delivery/analytics/delivery-stats.service';
import type { SendResult } from '../src/delivery/sending/webhook.sender';

const API = '/dashboard/api';

/** The exact nearest-rank percentile of `values`. */
function exactPercentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
}

function expectWithinBucketError(got: number | null, exact: number): void {
  expect(got).not.toBeNull();
  expect(Math.abs(got! - exact) / exact).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR + 1e-9);
}

describe('Delivery analytics (docs/delivery-analytics.md)', () => {
  let t: TestApp;
  let attempts: AttemptLog;
  let receiver: WebhookReceiver;
  let session: SignedIn;
  let accountId: number;
  let campaignId: number;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h' });
    attempts = t.app.get(AttemptLog);
    receiver = await new WebhookReceiver().start();
    accountId = await t.given.account();
    campaignId = await t.given.campaign(accountId);
    session = await signIn(t, await givenUser(t, 'viewer', accountId));
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const stats = (path: string, window?: string) =>
    t
      .http()
      .get(`${API}${path}/stats${window ? `?window=${window}` : ''}`)
      .set('Cookie', session.cookie);

  /** Records one finished attempt of `endpointId` that was never sent, like a test message. */
  const record = async (endpointId: number, at: Date, result: Partial<SendResult>) => {
    const start = {
      endpointId,
      deliveryId: null,
      messageId: `test_${Math.random().toString(36).slice(2)}`,
      eventType: 'ping',
      attemptedAt: at,
      request: { url: receiver.url, headers: {}, body: '{}' },
    };
    const begun = await attempts.begin(start);
    const full: SendResult = {
      attemptedAt: at,
      durationMs: 1,
      statusCode: 204,
      success: true,
      error: null,
      responseExcerpt: null,
      ...result,
    };
    await attempts.finish({
      ...start,
      id: begun!.id,
      deliveryCreatedAt: begun!.deliveryCreatedAt,
      result: full,
      next: null,
    });
  };

  it('agrees with the raw attempts: counts exactly, percentiles within the bucket error, in every window', async () => {
    const { id: endpointId } = await t.given.endpoint(campaignId, receiver.url, ['lead.created']);
    const at = new Date(Date.now() - 30_000);
    const outcomes: Array<Partial<SendResult>> = [
      ...Array.from({ length: 400 }, (_, i) => ({ durationMs: 3.7 * (i + 1) })), // 3.7 … 1,480 ms
      ...Array.from({ length: 30 }, (_, i) => ({
        durationMs: 20 + i,
        statusCode: 500,
        success: false,
        error: 'HTTP 500',
      })),
      ...Array.from({ length: 20 }, () => ({
        durationMs: 8,
        statusCode: 404,
        success: false,
        error: 'HTTP 404',
      })),
      ...Array.from({ length: 10 }, () => ({
        durationMs: 5,
        statusCode: 301,
        success: false,
        error: 'HTTP 301',
      })),
      ...Array.from({ length: 25 }, () => ({
        durationMs: 10_000,
        statusCode: null,
        success: false,
        error: 'timed out after 10000 ms',
      })),
      ...Array.from({ length: 15 }, () => ({
        durationMs: 0.4,
        statusCode: null,
        success: false,
        error: 'connection refused',
      })),
    ];
    await Promise.all(outcomes.map((o) => record(endpointId, at, o)));

    const rows: Array<{ duration_ms: number }> = await t.db.query(
      'SELECT duration_ms FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL',
      [endpointId],
    );
    const durations = rows.map((r) => r.duration_ms);
    expect(durations).toHaveLength(500);

    for (const window of ['1h', '24h', '7d', '30d']) {
      const res = await stats(`/endpoints/${endpointId}`, window).expect(200);
      const body = res.body as DeliveryStats;
      expect(body.window).toBe(window);
      expect(body.totals).toMatchObject({
        attempts: 500,
        successes: 400,
        failures: {
          timeout: 25,
          connection_error: 15,
          redirect: 10,
          client_error: 20,
          server_error: 30,
          other: 0,
        },
        success_rate: 0.8,
        first_successes: 0,
        lag_ms: { p50: null, p95: null },
      });
      const sum = durations.reduce((a, b) => a + b, 0);
      expect(body.totals.avg_duration_ms).toBeCloseTo(sum / 500, 2);
      expectWithinBucketError(body.totals.latency_ms.p50, exactPercentile(durations, 0.5));
      expectWithinBucketError(body.totals.latency_ms.p95, exactPercentile(durations, 0.95));
      expectWithinBucketError(body.totals.latency_ms.p99, exactPercentile(durations, 0.99));
      // The points hold the same attempts, all in the point of `at`.
      expect(body.points.reduce((n, p) => n + p.attempts, 0)).toBe(500);
      const point = body.points.find((p) => p.attempts > 0)!;
      expect(Date.parse(point.start)).toBeLessThanOrEqual(at.getTime());
      expect(point.latency_ms).toEqual(body.totals.latency_ms);
    }
    const hour = (await stats(`/endpoints/${endpointId}`, '1h').expect(200)).body as DeliveryStats;
    expect(hour).toMatchObject({ resolution: 'minute' });
    expect(hour.points).toHaveLength(60);
    const month = (await stats(`/endpoints/${endpointId}`, '30d').expect(200))
      .body as DeliveryStats;
    expect(month).toMatchObject({ resolution: 'day' });
    expect(month.points).toHaveLength(30);
  });

  it('measures end-to-end lag from the event to the first success, and sums a campaign', async () => {
    const caller = await t.given.caller();
    const viewer = await signIn(t, await givenUser(t, 'viewer', caller.accountId));
    const first = await t.given.endpoint(caller.campaignId, receiver.url, ['lead.created']);
    const second = await t.given.endpoint(caller.campaignId, receiver.url, ['lead.created']);
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, [{ phone: '+14155550100' }, { phone: '+14155550101' }]))
      .expect(202);
    await eventually(async () => {
      const done = await t.db.query(
        `SELECT count(*)::int AS n FROM webhook_delivery WHERE endpoint_id IN ($1, $2) AND status = 'succeeded'`,
        [first.id, second.id],
      );
      expect(done[0].n).toBe(4);
    });
    const lags: Array<{ lag: number }> = await t.db.query(
      `SELECT extract(epoch FROM a.attempted_at - e.created_at) * 1000 + a.duration_ms AS lag
         FROM webhook_delivery_attempt a
         JOIN webhook_delivery d ON d.id = a.delivery_id
         JOIN webhook_event e ON e.id = d.event_id
        WHERE a.endpoint_id = $1 AND a.success`,
      [first.id],
    );
    expect(lags).toHaveLength(2);
    const res = await t
      .http()
      .get(`${API}/endpoints/${first.id}/stats?window=1h`)
      .set('Cookie', viewer.cookie)
      .expect(200);
    const body = res.body as DeliveryStats;
    expect(body.totals).toMatchObject({ attempts: 2, successes: 2, first_successes: 2 });
    expectWithinBucketError(
      body.totals.lag_ms.p95,
      exactPercentile(
        lags.map((l) => Number(l.lag)),
        0.95,
      ),
    );

    const campaign = (
      await t
        .http()
        .get(`${API}/campaigns/${caller.campaignId}/stats?window=24h`)
        .set('Cookie', viewer.cookie)
        .expect(200)
    ).body as DeliveryStats;
    expect(campaign.totals).toMatchObject({ attempts: 4, successes: 4, first_successes: 4 });
  });

  it('counts an attempt closed as of unknown outcome as a failure of class other', async () => {
    const { id: endpointId } = await t.given.endpoint(campaignId, receiver.url, ['lead.created']);
    await t.db.query(
      `INSERT INTO webhook_delivery_attempt (endpoint_id, message_id, attempted_at, duration_ms, success)
       VALUES ($1, 'ping_abandoned', now() - interval '10 minutes', 0, false)`,
      [endpointId],
    );
    expect(await attempts.closeAbandoned()).toBe(1);
    const body = (await stats(`/endpoints/${endpointId}`, '1h').expect(200)).body as DeliveryStats;
    expect(body.totals).toMatchObject({ attempts: 1, successes: 0, failures: { other: 1 } });
    const health: Array<{ total_deliveries: number }> = await t.db.query(
      'SELECT total_deliveries FROM webhook_endpoint WHERE id = $1',
      [endpointId],
    );
    expect(health[0].total_deliveries).toBe(1);
  });

  it('refuses an unknown window and another account’s endpoint or campaign', async () => {
    const { id: endpointId } = await t.given.endpoint(campaignId, receiver.url, ['lead.created']);
    const bad = await stats(`/endpoints/${endpointId}`, '2h').expect(422);
    expect(bad.body).toMatchObject({ error: 'validation_failed' });
    expect(bad.body.message).toContain('window');
    const other = await t.given.caller();
    const theirs = await t.given.endpoint(other.campaignId, receiver.url, ['lead.created']);
    const hidden = await stats(`/endpoints/${theirs.id}`).expect(404);
    expect(hidden.body).toMatchObject({ error: 'not_found' });
    await stats(`/campaigns/${other.campaignId}`).expect(404);
  });
});
