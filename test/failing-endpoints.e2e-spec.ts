import { startTestApp, type TestApp } from './support/test-app';
import { givenUser, signIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import { FailingEndpointMonitor } from '../src/delivery/worker/failing-endpoints.monitor';

/**
 * Failing endpoints (docs/webhooks.md#failing-endpoints): the worker's rules over the rollups,
 * with each change in the endpoint row and the audit log. The rollups are written directly,
 * so the rules are exercised at any point of a 24-hour or 5-day history.
 */
describe('Failing endpoints (docs/webhooks.md#failing-endpoints)', () => {
  let t: TestApp;
  let monitor: FailingEndpointMonitor;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_DISABLE_AFTER: '5d' });
    monitor = t.app.get(FailingEndpointMonitor);
  });
  afterAll(() => t.close());

  /** Adds attempts to an endpoint's rollup row of `period` starting at `start` (SQL). */
  const rollup = (
    endpointId: number,
    period: 'minute' | 'hour',
    start: string,
    attempts: number,
    successes: number,
  ) =>
    t.db.query(
      `INSERT INTO endpoint_delivery_rollup
              (endpoint_id, period, bucket_start, attempts, successes, timeouts, connection_errors,
               redirects, client_errors, server_errors, other_failures, duration_sum_ms, latency,
               first_successes, lag)
       VALUES ($1, $2, ${start}, $3::int, $4::int, 0, 0, 0, 0, $3::int - $4::int, 0, 0, '{}', 0, '{}')
       ON CONFLICT (endpoint_id, period, bucket_start) DO UPDATE
          SET attempts = excluded.attempts, successes = excluded.successes,
              server_errors = excluded.server_errors`,
      [endpointId, period, attempts, successes],
    );
  const thisMinute = `date_trunc('minute', now())`;
  const hoursAgo = (n: number) =>
    `(date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '${n} hours')`;

  const endpointRow = async (id: number) =>
    (
      await t.db.query(
        `SELECT is_enabled, disabled_reason, failing_since, failing_reason FROM webhook_endpoint WHERE id = $1`,
        [id],
      )
    )[0] as {
      is_enabled: boolean;
      disabled_reason: string | null;
      failing_since: Date | null;
      failing_reason: string | null;
    };
  const auditOf = (id: number) =>
    t.db.query(
      `SELECT actor_type, action, details FROM audit_log_entry
        WHERE object_type = 'endpoint' AND object_id = $1 ORDER BY id`,
      [String(id)],
    );

  it('marks an endpoint failing when more than half of 20+ attempts of the last hour failed, and clears it on recovery', async () => {
    const caller = await t.given.caller();
    const { id } = await t.given.endpoint(caller.campaignId, 'https://hooks.example.com/a', [
      'lead.created',
    ]);
    // 19 attempts all failed: too few to judge.
    await rollup(id, 'minute', thisMinute, 19, 0);
    expect((await monitor.check()).has(id)).toBe(false);
    expect(await endpointRow(id)).toMatchObject({ failing_since: null });

    await rollup(id, 'minute', thisMinute, 25, 12); // 13 of 25 failed: more than half
    expect((await monitor.check()).get(id)).toEqual({ kind: 'failing', reason: 'failure_rate' });
    const failing = await endpointRow(id);
    expect(failing).toMatchObject({ is_enabled: true, failing_reason: 'failure_rate' });
    expect(Math.abs(failing.failing_since!.getTime() - Date.now())).toBeLessThan(60_000);
    // A second pass (or a second worker) changes nothing.
    expect((await monitor.check()).has(id)).toBe(false);

    // The dashboard shows it.
    const viewer = await signIn(t, await givenUser(t, 'viewer', caller.accountId));
    const shown = await t
      .http()
      .get(`/dashboard/api/endpoints/${id}`)
      .set('Cookie', viewer.cookie)
      .expect(200);
    expect(shown.body).toMatchObject({
      failing_reason: 'failure_rate',
      failing_since: failing.failing_since!.toISOString(),
      auto_disable_at: new Date(failing.failing_since!.getTime() + 5 * 86_400_000).toISOString(),
    });

    await rollup(id, 'minute', thisMinute, 25, 20); // 5 of 25 failed
    expect((await monitor.check()).get(id)).toEqual({ kind: 'recovered' });
    expect(await endpointRow(id)).toMatchObject({ failing_since: null, failing_reason: null });
    expect(await auditOf(id)).toEqual([
      {
        actor_type: 'system',
        action: 'endpoint.failing',
        details: {
          reason: 'failure_rate',
          url: 'https://hooks.example.com/a',
          last_hour_attempts: 25,
          last_hour_successes: 12,
        },
      },
      {
        actor_type: 'system',
        action: 'endpoint.recovered',
        details: {
          url: 'https://hooks.example.com/a',
          last_hour_attempts: 25,
          last_hour_successes: 20,
          failing_since: failing.failing_since!.toISOString(),
        },
      },
    ]);
  });

  it('marks an endpoint whose every attempt of the last 24 hours failed, then disables it after 5 days without a success', async () => {
    const caller = await t.given.caller();
    const { id } = await t.given.endpoint(caller.campaignId, 'https://hooks.example.com/b', [
      'lead.created',
    ]);
    // Failures from 23 hours ago only: not yet a whole day.
    await rollup(id, 'hour', hoursAgo(23), 3, 0);
    expect((await monitor.check()).has(id)).toBe(false);
    // And from the hour that began 24 hours before this one, with no success since.
    await rollup(id, 'hour', hoursAgo(24), 2, 0);
    expect((await monitor.check()).get(id)).toEqual({ kind: 'failing', reason: 'no_success' });

    // Failing for 6 days with no success since: disabled with the reason auto.
    await t.db.query(
      `UPDATE webhook_endpoint SET failing_since = now() - interval '6 days' WHERE id = $1`,
      [id],
    );
    expect((await monitor.check()).get(id)).toEqual({ kind: 'disable' });
    expect(await endpointRow(id)).toMatchObject({
      is_enabled: false,
      disabled_reason: 'auto',
      failing_since: null,
      failing_reason: null,
    });
    const audit = await auditOf(id);
    expect(audit.map((e: { action: string }) => e.action)).toEqual([
      'endpoint.failing',
      'endpoint.disable',
    ]);
    expect(audit[1].details).toMatchObject({ reason: 'auto', url: 'https://hooks.example.com/b' });
    // A disabled endpoint is never marked failing again.
    expect((await monitor.check()).has(id)).toBe(false);
  });

  it('does not disable a failing endpoint that had a success after it started failing', async () => {
    const caller = await t.given.caller();
    const { id } = await t.given.endpoint(caller.campaignId, 'https://hooks.example.com/c', [
      'lead.created',
    ]);
    await rollup(id, 'minute', thisMinute, 30, 2);
    expect((await monitor.check()).get(id)).toMatchObject({ kind: 'failing' });
    await t.db.query(
      `UPDATE webhook_endpoint SET failing_since = now() - interval '6 days' WHERE id = $1`,
      [id],
    );
    // The current hour (after the failing mark's hour) had successes.
    await rollup(id, 'hour', hoursAgo(0), 30, 2);
    expect((await monitor.check()).has(id)).toBe(false);
    expect(await endpointRow(id)).toMatchObject({
      is_enabled: true,
      failing_reason: 'failure_rate',
    });
  });

  it('sends signed endpoint.failing and endpoint.disabled messages to the account’s notification URL', async () => {
    const caller = await t.given.caller();
    const admin = await signIn(t, await givenUser(t, 'admin', caller.accountId));
    const viewer = await signIn(t, await givenUser(t, 'viewer', caller.accountId));
    const ops = await new WebhookReceiver().start();
    try {
      const put = (session: typeof admin, body: object) =>
        t
          .http()
          .put('/dashboard/api/account/notifications')
          .set('Cookie', session.cookie)
          .set('X-CSRF-Token', session.csrf)
          .send(body);
      // Only an admin sets it; a bad URL or a missing one changes nothing.
      await put(viewer, { url: ops.url }).expect(403);
      const bad = await put(admin, { url: 'ftp://ops.example.com' }).expect(422);
      expect(bad.body).toMatchObject({ error: 'validation_failed' });
      expect((await put(admin, {}).expect(422)).body.message).toContain('url');
      const set = await put(admin, { url: ops.url }).expect(200);
      expect(set.body).toEqual({ url: ops.url, secret: expect.stringMatching(/^whsec_/) });
      const secret = set.body.secret as string;
      // The same URL again keeps its secret (none shown).
      expect((await put(admin, { url: ops.url }).expect(200)).body).toEqual({ url: ops.url });
      const read = await t
        .http()
        .get('/dashboard/api/account/notifications')
        .set('Cookie', viewer.cookie)
        .expect(200);
      expect(read.body).toEqual({ url: ops.url });
      const audit = await t.db.query(
        `SELECT action, details FROM audit_log_entry WHERE account_id = $1 AND action = 'account.notifications_update' ORDER BY id`,
        [caller.accountId],
      );
      expect(audit).toEqual([
        { action: 'account.notifications_update', details: { url: ops.url, new_secret: true } },
        { action: 'account.notifications_update', details: { url: ops.url, new_secret: false } },
      ]);

      const { id } = await t.given.endpoint(caller.campaignId, 'https://hooks.example.com/d', [
        'lead.created',
      ]);
      await rollup(id, 'minute', thisMinute, 40, 0);
      expect((await monitor.check()).get(id)).toMatchObject({ kind: 'failing' });
      await eventually(async () => expect(ops.received).toHaveLength(1));
      const failing = verifyWebhook(secret, ops.received[0]);
      expect(String(ops.received[0].headers['webhook-id'])).toMatch(/^msg_/);
      expect(failing).toMatchObject({
        type: 'endpoint.failing',
        data: {
          endpoint_id: id,
          campaign_id: caller.campaignId,
          url: 'https://hooks.example.com/d',
          reason: 'failure_rate',
          last_hour_attempts: 40,
          last_hour_successes: 0,
        },
      });

      await t.db.query(
        `UPDATE webhook_endpoint SET failing_since = now() - interval '6 days' WHERE id = $1`,
        [id],
      );
      expect((await monitor.check()).get(id)).toEqual({ kind: 'disable' });
      await eventually(async () => expect(ops.received).toHaveLength(2));
      expect(verifyWebhook(secret, ops.received[1])).toMatchObject({
        type: 'endpoint.disabled',
        data: { endpoint_id: id, reason: 'auto' },
      });

      // Removed: no more messages.
      expect((await put(admin, { url: null }).expect(200)).body).toEqual({ url: null });
    } finally {
      await ops.stop();
    }
  });
});
