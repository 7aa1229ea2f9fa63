import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { FailingEndpointMonitor } from '../src/delivery/worker/failing-endpoints.monitor';
import {
  RecoveryProbeRunner,
  type ProbeOutcome,
} from '../src/delivery/worker/recovery-probes.runner';
import { DeliveryStatsService } from '../src/delivery/analytics';
import { DeliveryService } from '../src/delivery/attempts';
import { DeliveryRecoveries } from '../src/delivery/recovery';
import { WebhookSender } from '../src/delivery/sending';
import { AppConfig } from '../src/config/app-config';
import { AccountNotifications, DeliveryTargets } from '../src/webhooks';
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { madeUpEvent } from './support/events';
import { startTestApp, type TestApp } from './support/test-app';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';

const API = '/dashboard/api';

/**
 * Endpoints that come back by themselves (docs/webhooks.md#endpoints-that-come-back-by-themselves):
 * an opted-in endpoint disabled `auto` is probed with the signed ping on a back-off, enabled
 * again on a 2xx with its missed deliveries replayed, an audit entry and an operational
 * message. The schedule is shortened by configuration (1 s, doubling, at most 4 s, for an
 * hour); a probe is made due by moving `next_probe_at` to now in the database instead of
 * waiting, and the probes run by calling the worker's pass directly.
 */
describe('Endpoints that come back by themselves (docs/webhooks.md#endpoints-that-come-back-by-themselves)', () => {
  let t: TestApp;
  let runner: RecoveryProbeRunner;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_RECOVERY_PROBE_FIRST: '1s',
      WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL: '4s',
      WEBHOOK_RECOVERY_PROBE_FOR: '1h',
      WEBHOOK_RETRY_SCHEDULE: '1s',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
      // The passes run when the tests call them, not on the worker's timer (besides at start).
      WEBHOOK_MONITOR_INTERVAL_MS: '3600000',
    });
    runner = t.app.get(RecoveryProbeRunner);
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
    secret: string;
    receiver: WebhookReceiver;
  }

  /**
   * An admin signed in, and an endpoint of their account created through the dashboard with
   * `auto_recover` as given, whose receiver answers 500.
   */
  async function setup(autoRecover = true): Promise<Setup> {
    const admin = await givenUser(t, 'admin');
    const session = await signIn(t, admin);
    const receiver = await new WebhookReceiver().start();
    receivers.push(receiver);
    receiver.behaviour = { status: 500 };
    const campaignId = await t.given.campaign(admin.accountId);
    const created = await t
      .http()
      .post(`${API}/campaigns/${campaignId}/endpoints`)
      .set({ Cookie: session.cookie, 'X-CSRF-Token': session.csrf })
      .send({ url: receiver.url, events: ['lead.created'], auto_recover: autoRecover })
      .expect(201);
    expect(created.body.endpoint).toMatchObject({
      auto_recover: autoRecover,
      recovery_probe: null,
    });
    return {
      admin,
      session,
      campaignId,
      endpointId: created.body.endpoint.id as number,
      secret: created.body.secret as string,
      receiver,
    };
  }

  /** Disables the endpoint `auto` the way the worker does: failing for 6 days, no success. */
  async function disableAuto(s: Setup): Promise<void> {
    await t.db.query(
      `INSERT INTO endpoint_delivery_rollup
              (endpoint_id, period, bucket_start, attempts, successes, timeouts, connection_errors,
               redirects, client_errors, server_errors, other_failures, duration_sum_ms, latency,
               first_successes, lag)
       VALUES ($1, 'minute', date_trunc('minute', now()), 40, 0, 0, 0, 0, 0, 40, 0, 0, '{}', 0, '{}')`,
      [s.endpointId],
    );
    const monitor = t.app.get(FailingEndpointMonitor);
    expect((await monitor.check()).get(s.endpointId)).toMatchObject({ kind: 'failing' });
    await t.db.query(
      `UPDATE webhook_endpoint SET failing_since = now() - interval '6 days' WHERE id = $1`,
      [s.endpointId],
    );
    expect((await monitor.check()).get(s.endpointId)).toEqual({ kind: 'disable' });
  }

  const row = async (id: number) =>
    (
      await t.db.query(
        `SELECT is_enabled, disabled_reason, disabled_at, last_disabled_at, last_disabled_reason,
                auto_recover, probing_since, next_probe_at, probe_count, last_probe_at,
                probe_gave_up_at
           FROM webhook_endpoint WHERE id = $1`,
        [id],
      )
    )[0] as {
      is_enabled: boolean;
      disabled_reason: string | null;
      disabled_at: Date | null;
      last_disabled_at: Date | null;
      last_disabled_reason: string | null;
      auto_recover: boolean;
      probing_since: Date | null;
      next_probe_at: Date | null;
      probe_count: number;
      last_probe_at: Date | null;
      probe_gave_up_at: Date | null;
    };

  /** Makes the endpoint's next probe due now. */
  const makeDue = (id: number) =>
    t.db.query(
      `UPDATE webhook_endpoint SET next_probe_at = now() WHERE id = $1 AND next_probe_at IS NOT NULL`,
      [id],
    );

  /** The outcomes of one pass, for `id` only (other tests' endpoints may be due too). */
  const probe = async (id: number): Promise<ProbeOutcome[]> =>
    (await runner.probeDue()).filter((o) => o.endpointId === id);

  const auditOf = (id: number) =>
    t.db.query(
      `SELECT actor_type, action, details FROM audit_log_entry
        WHERE object_type = 'endpoint' AND object_id = $1 ORDER BY id`,
      [String(id)],
    );

  const view = async (s: Setup) =>
    (
      await t
        .http()
        .get(`${API}/endpoints/${s.endpointId}`)
        .set('Cookie', s.session.cookie)
        .expect(200)
    ).body as Record<string, unknown>;

  const seconds = (from: Date, to: Date | null) => (to!.getTime() - from.getTime()) / 1000;

  it('probes on a doubling back-off while the receiver fails, then enables the endpoint, replays what it missed and announces it', async () => {
    const s = await setup();
    const ops = await new WebhookReceiver().start();
    receivers.push(ops);
    const notifications = await t
      .http()
      .put(`${API}/account/notifications`)
      .set({ Cookie: s.session.cookie, 'X-CSRF-Token': s.session.csrf })
      .send({ url: ops.url })
      .expect(200);
    const opsSecret = notifications.body.secret as string;

    await disableAuto(s);
    const disabled = await row(s.endpointId);
    expect(disabled).toMatchObject({
      is_enabled: false,
      disabled_reason: 'auto',
      probe_count: 0,
      last_probe_at: null,
      probe_gave_up_at: null,
    });
    expect(disabled.probing_since).toEqual(disabled.disabled_at);
    expect(seconds(disabled.probing_since!, disabled.next_probe_at)).toBeCloseTo(1, 1);
    // Not due yet: nothing is sent.
    expect(await probe(s.endpointId)).toEqual([]);
    expect(s.receiver.received).toHaveLength(0);

    // Events recorded while it is disabled are skipped: what it misses.
    const recorded = await t.app.get(WebhookEventPublisher).publish(
      s.campaignId,
      [1, 2, 3].map((i) => madeUpEvent('lead.created', { id: i, campaign_id: s.campaignId })),
    );
    const missed = recorded.deliveries.map((d) => d.id);
    expect(missed).toHaveLength(0); // skipped deliveries are not queued
    const skipped: Array<{ id: number }> = await t.db.query(
      `SELECT id::int FROM webhook_delivery WHERE endpoint_id = $1 AND status = 'skipped' ORDER BY id`,
      [s.endpointId],
    );
    expect(skipped).toHaveLength(3);

    // The first probe comes on schedule, 1 s after the endpoint was disabled.
    await new Promise((resolve) =>
      setTimeout(resolve, disabled.next_probe_at!.getTime() - Date.now() + 100),
    );
    // Three failed probes: the wait doubles (2 s, 4 s), then stays at the 4 s cap.
    const waits: number[] = [];
    for (let n = 1; n <= 3; n += 1) {
      if (n > 1) await makeDue(s.endpointId);
      const [outcome] = await probe(s.endpointId);
      expect(outcome).toMatchObject({ kind: 'failed' });
      const after = await row(s.endpointId);
      expect(after).toMatchObject({ is_enabled: false, disabled_reason: 'auto', probe_count: n });
      waits.push(Math.round(seconds(after.last_probe_at!, after.next_probe_at)));
    }
    expect(waits).toEqual([2, 4, 4]);
    expect(s.receiver.received).toHaveLength(3);
    for (const ping of s.receiver.received) {
      expect(String(ping.headers['webhook-id'])).toMatch(/^ping_/);
      expect(verifyWebhook(s.secret, ping)).toMatchObject({
        type: 'ping',
        data: { endpoint_id: s.endpointId },
      });
    }
    // The dashboard shows the probing.
    const probing = await view(s);
    expect(probing).toMatchObject({
      is_enabled: false,
      disabled_reason: 'auto',
      auto_recover: true,
      recovery_probe: {
        since: disabled.probing_since!.toISOString(),
        next_probe_at: (await row(s.endpointId)).next_probe_at!.toISOString(),
        probes: 3,
        gave_up_at: null,
      },
    });

    // The receiver is back: the next probe enables the endpoint.
    s.receiver.behaviour = { status: 204 };
    await makeDue(s.endpointId);
    const [outcome] = await probe(s.endpointId);
    expect(outcome).toMatchObject({ kind: 'recovered', probes: 4 });
    const recovered = await row(s.endpointId);
    expect(recovered).toMatchObject({
      is_enabled: true,
      disabled_reason: null,
      disabled_at: null,
      last_disabled_reason: 'auto',
      last_disabled_at: disabled.disabled_at,
      probing_since: null,
      next_probe_at: null,
      probe_count: 4,
    });

    // What it missed is replayed and received, after the successful probe.
    await eventually(async () => {
      const statuses: Array<{ status: string }> = await t.db.query(
        `SELECT status FROM webhook_delivery WHERE id = ANY($1)`,
        [skipped.map((d) => d.id)],
      );
      expect(statuses.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    }, 20_000);
    const replayed = s.receiver.received.slice(4).map((r) => verifyWebhook(s.secret, r));
    expect(replayed.map((b) => b.data.id).sort()).toEqual([1, 2, 3]);
    const [recovery] = await t.db.query(
      `SELECT id, scope, since, total FROM delivery_recovery WHERE endpoint_id = $1`,
      [s.endpointId],
    );
    expect(recovery).toMatchObject({ scope: 'missed', since: disabled.disabled_at, total: 3 });
    expect(outcome).toMatchObject({ recoveryId: recovery.id });

    // The audit log: by the system, the replay and the recovery.
    const audit = (await auditOf(s.endpointId)) as Array<{
      actor_type: string;
      action: string;
      details: Record<string, unknown>;
    }>;
    const [probeAttempt] = await t.db.query(
      `SELECT id::int, message_id AS webhook_id FROM webhook_delivery_attempt
        WHERE endpoint_id = $1 AND success ORDER BY attempted_at, id LIMIT 1`,
      [s.endpointId],
    );
    expect(audit.slice(-2)).toEqual([
      {
        actor_type: 'system',
        action: 'delivery.replay_missed',
        details: { recovery_id: recovery.id, since: disabled.disabled_at!.toISOString(), total: 3 },
      },
      {
        actor_type: 'system',
        action: 'endpoint.recovered',
        details: {
          reason: 'probe',
          url: s.receiver.url,
          attempt_id: probeAttempt.id,
          webhook_id: probeAttempt.webhook_id,
          since: disabled.disabled_at!.toISOString(),
          recovery_id: recovery.id,
          probes: 4,
        },
      },
    ]);

    // The operational message, signed with the account's secret.
    await eventually(async () => expect(ops.received).toHaveLength(3));
    const message = verifyWebhook(opsSecret, ops.received[2]);
    expect(String(ops.received[2].headers['webhook-id'])).toMatch(/^msg_/);
    expect(message).toEqual({
      type: 'endpoint.recovered',
      timestamp: expect.any(String),
      data: {
        endpoint_id: s.endpointId,
        campaign_id: s.campaignId,
        url: s.receiver.url,
        reason: 'probe',
        last_hour_attempts: expect.any(Number),
        last_hour_successes: expect.any(Number),
        since: disabled.disabled_at!.toISOString(),
        probes: 4,
        recovery_id: recovery.id,
      },
    });
    expect(message.data.last_hour_successes).toBeGreaterThanOrEqual(1);

    // The probes are in the delivery log as pings, and the dashboard shows it enabled.
    const log = await t
      .http()
      .get(`${API}/endpoints/${s.endpointId}/attempts?event_type=ping`)
      .set('Cookie', s.session.cookie)
      .expect(200);
    expect(
      (log.body.items as Array<{ success: boolean; event_type: string | null }>).map(
        (i) => i.success,
      ),
    ).toEqual([true, false, false, false]);
    expect(await view(s)).toMatchObject({
      is_enabled: true,
      last_disabled_reason: 'auto',
      recovery_probe: null,
    });
    // Nothing more to probe.
    expect(await probe(s.endpointId)).toEqual([]);
  });

  it('does not probe an endpoint disabled by hand, disabled as gone, not opted in, or opted out', async () => {
    const manual = await setup();
    const takenOver = await setup();
    const gone = await setup();
    const notOptedIn = await setup(false);
    const patch = (s: Setup, body: object) =>
      t
        .http()
        .patch(`${API}/endpoints/${s.endpointId}`)
        .set({ Cookie: s.session.cookie, 'X-CSRF-Token': s.session.csrf })
        .send(body);

    // Disabled by hand: the reason is manual, nothing is scheduled.
    await patch(manual, { enabled: false }).expect(200);
    // Disabled auto, then "disabled" again by hand (the form sends `enabled` with every save):
    // its reason, time and probing stay; switching auto_recover off is what stops probing.
    await disableAuto(takenOver);
    const before = await row(takenOver.endpointId);
    expect(before.next_probe_at).not.toBeNull();
    const kept = await patch(takenOver, { enabled: false, description: 'CRM' }).expect(200);
    expect(kept.body).toMatchObject({
      disabled_reason: 'auto',
      disabled_at: before.disabled_at!.toISOString(),
      recovery_probe: { next_probe_at: before.next_probe_at!.toISOString() },
    });
    const stopped = await patch(takenOver, { auto_recover: false }).expect(200);
    expect(stopped.body).toMatchObject({
      disabled_reason: 'auto',
      auto_recover: false,
      recovery_probe: null,
    });
    // Answered 410 Gone.
    gone.receiver.behaviour = { status: 410 };
    await t.app.get(DeliveryService).ping(gone.endpointId);
    // Not opted in: disabled auto, never probed.
    await disableAuto(notOptedIn);

    for (const s of [manual, takenOver, gone, notOptedIn]) {
      expect(await row(s.endpointId)).toMatchObject({
        is_enabled: false,
        next_probe_at: null,
        probing_since: null,
      });
    }
    expect((await row(gone.endpointId)).disabled_reason).toBe('gone');
    expect((await row(takenOver.endpointId)).disabled_reason).toBe('auto');
    expect((await row(notOptedIn.endpointId)).disabled_reason).toBe('auto');
    // A probe cannot be scheduled for an endpoint that is not opted in.
    await expect(
      t.db.query(
        `UPDATE webhook_endpoint SET next_probe_at = now(), probing_since = now() WHERE id = $1`,
        [notOptedIn.endpointId],
      ),
    ).rejects.toThrow(/chk_webhook_endpoint_probe_state/);

    const outcomes = await runner.probeDue();
    const ids = [manual, takenOver, gone, notOptedIn].map((s) => s.endpointId);
    expect(outcomes.filter((o) => ids.includes(o.endpointId))).toEqual([]);
    expect(manual.receiver.received).toHaveLength(0);
    expect(takenOver.receiver.received).toHaveLength(0);
    expect(notOptedIn.receiver.received).toHaveLength(0);
    expect(gone.receiver.received).toHaveLength(1); // the ping that got the 410

    // Opting in later starts probing an endpoint disabled auto; opting out stops it.
    const optedIn = await patch(notOptedIn, { auto_recover: true }).expect(200);
    expect(optedIn.body).toMatchObject({
      auto_recover: true,
      recovery_probe: { probes: 0, last_probe_at: null, gave_up_at: null },
    });
    const started = await row(notOptedIn.endpointId);
    expect(seconds(started.probing_since!, started.next_probe_at)).toBeCloseTo(1, 1);
    const optedOut = await patch(notOptedIn, { auto_recover: false }).expect(200);
    expect(optedOut.body).toMatchObject({ auto_recover: false, recovery_probe: null });
    expect(await row(notOptedIn.endpointId)).toMatchObject({
      next_probe_at: null,
      probing_since: null,
    });
    const audit = (await auditOf(notOptedIn.endpointId)) as Array<{
      action: string;
      details: Record<string, unknown>;
    }>;
    expect(audit.filter((e) => e.action === 'endpoint.update').map((e) => e.details)).toEqual([
      { changes: { auto_recover: true } },
      { changes: { auto_recover: false } },
    ]);
  });

  it('stops probing an endpoint enabled by hand, keeping its disabled reason and time as the last ones', async () => {
    const s = await setup();
    await disableAuto(s);
    const disabled = await row(s.endpointId);
    expect(disabled.next_probe_at).not.toBeNull();
    const enabled = await t
      .http()
      .patch(`${API}/endpoints/${s.endpointId}`)
      .set({ Cookie: s.session.cookie, 'X-CSRF-Token': s.session.csrf })
      .send({ enabled: true })
      .expect(200);
    expect(enabled.body).toMatchObject({
      is_enabled: true,
      auto_recover: true,
      recovery_probe: null,
      last_disabled_reason: 'auto',
      last_disabled_at: disabled.disabled_at!.toISOString(),
    });
    expect(await row(s.endpointId)).toMatchObject({
      is_enabled: true,
      probing_since: null,
      next_probe_at: null,
      probe_count: 0,
    });
    await makeDue(s.endpointId);
    expect(await probe(s.endpointId)).toEqual([]);
    expect(s.receiver.received).toHaveLength(0);
  });

  it('gives up once the probing window is over, and says so', async () => {
    const s = await setup();
    await disableAuto(s);
    // Probing started almost an hour ago (WEBHOOK_RECOVERY_PROBE_FOR is 1h): the next probe
    // would fall after the window.
    await t.db.query(
      `UPDATE webhook_endpoint SET probing_since = now() - interval '59 minutes 59 seconds',
                                   next_probe_at = now()
        WHERE id = $1`,
      [s.endpointId],
    );
    expect(await probe(s.endpointId)).toEqual([{ endpointId: s.endpointId, kind: 'gave_up' }]);
    const after = await row(s.endpointId);
    expect(after).toMatchObject({
      is_enabled: false,
      disabled_reason: 'auto',
      next_probe_at: null,
      probe_count: 1,
    });
    expect(after.probe_gave_up_at).not.toBeNull();
    expect(await view(s)).toMatchObject({
      recovery_probe: {
        next_probe_at: null,
        probes: 1,
        gave_up_at: after.probe_gave_up_at!.toISOString(),
      },
    });
    // No more probes, even with the receiver back.
    s.receiver.behaviour = { status: 204 };
    expect(await probe(s.endpointId)).toEqual([]);
    expect(s.receiver.received).toHaveLength(1);
  });

  it('disables as gone an endpoint whose probe is answered 410, and probes it no more', async () => {
    const s = await setup();
    await disableAuto(s);
    const disabled = await row(s.endpointId);
    s.receiver.behaviour = { status: 410 };
    await makeDue(s.endpointId);
    expect(await probe(s.endpointId)).toEqual([{ endpointId: s.endpointId, kind: 'gone' }]);
    expect(await row(s.endpointId)).toMatchObject({
      is_enabled: false,
      disabled_reason: 'gone',
      disabled_at: disabled.disabled_at,
      next_probe_at: null,
      probing_since: null,
    });
    const [attempt] = await t.db.query(
      `SELECT id::int, message_id AS webhook_id FROM webhook_delivery_attempt WHERE endpoint_id = $1`,
      [s.endpointId],
    );
    const audit = (await auditOf(s.endpointId)) as Array<{
      actor_type: string;
      action: string;
      details: Record<string, unknown>;
    }>;
    expect(audit[audit.length - 1]).toEqual({
      actor_type: 'system',
      action: 'endpoint.disable',
      details: {
        reason: 'gone',
        status_code: 410,
        url: s.receiver.url,
        attempt_id: attempt.id,
        webhook_id: attempt.webhook_id,
        delivery_id: null,
        previous_reason: 'auto',
      },
    });
    expect(await probe(s.endpointId)).toEqual([]);
  });

  it('sends one probe when two workers look for due probes at once', async () => {
    /** A second worker's runner on the same database, as another process would have. */
    const second = new RecoveryProbeRunner(
      t.app.get(DeliveryService),
      t.app.get(DeliveryTargets),
      t.app.get(DeliveryRecoveries),
      t.app.get(DeliveryStatsService),
      t.app.get(AccountNotifications),
      t.app.get(WebhookSender),
      t.app.get(AppConfig),
    );
    const failing = await setup();
    const healthy = await setup();
    await disableAuto(failing);
    await disableAuto(healthy);
    failing.receiver.behaviour = { status: 500, delayMs: 300 };
    healthy.receiver.behaviour = { status: 204, delayMs: 300 };
    await makeDue(failing.endpointId);
    await makeDue(healthy.endpointId);

    const ids = [failing.endpointId, healthy.endpointId];
    const [a, b] = await Promise.all([runner.probeDue(), second.probeDue()]);
    const outcomes = [...a, ...b].filter((o) => ids.includes(o.endpointId));
    expect(outcomes.map((o) => `${o.endpointId}:${o.kind}`).sort()).toEqual(
      [`${failing.endpointId}:failed`, `${healthy.endpointId}:recovered`].sort(),
    );
    expect(failing.receiver.received).toHaveLength(1);
    expect(await row(failing.endpointId)).toMatchObject({ probe_count: 1, is_enabled: false });
    expect(await row(healthy.endpointId)).toMatchObject({ probe_count: 1, is_enabled: true });
    const recovered = await t.db.query(
      `SELECT count(*)::int AS n FROM audit_log_entry
        WHERE object_type = 'endpoint' AND object_id = $1 AND action = 'endpoint.recovered'`,
      [String(healthy.endpointId)],
    );
    expect(recovered).toEqual([{ n: 1 }]);
    // The healthy endpoint's receiver got its probe once (and nothing to replay).
    expect(
      healthy.receiver.received.filter((r) => String(r.headers['webhook-id']).startsWith('ping_')),
    ).toHaveLength(1);
  });
});
