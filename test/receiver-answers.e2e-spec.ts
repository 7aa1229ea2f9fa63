import { startTestApp, type TestApp, type Caller, uploadBody } from './support/test-app';
import { receiverPool, type WebhookReceiver } from './support/webhook-receiver';
import { eventually, sleep } from './support/eventually';
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';

const UPLOAD = '/api/v1/leads/upload';
const HOUR_MS = 3_600_000;

/**
 * Receivers that answer 410 Gone (the endpoint is disabled at once) or 429/503 with
 * Retry-After (the next attempt waits what they ask): docs/webhooks.md#disabled-endpoints and
 * docs/webhooks.md#busy-receivers-429-and-503.
 */
describe('Receivers that say "gone" or "later"', () => {
  let t: TestApp;
  const receivers = receiverPool();

  // Long steps, so a retry within seconds can only come from Retry-After; one attempt at a
  // time, so the deliveries of a batch are attempted one after the other.
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h,1h', WEBHOOK_WORKER_CONCURRENCY: '1' });
  });
  afterAll(async () => {
    await t.close();
    await receivers.stopAll();
  });

  /** A new customer whose endpoint (subscribed to `lead.created`) answers as `behaviour` says. */
  const endpointAnswering = async (
    behaviour: WebhookReceiver['behaviour'],
  ): Promise<{ me: Caller; r: WebhookReceiver; id: number }> => {
    const me = await t.given.caller();
    const r = await receivers.start();
    r.behaviour = behaviour;
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['lead.created']);
    return { me, r, id };
  };

  let phone = 2_000;
  const leads = (n: number) =>
    Array.from({ length: n }, () => ({ phone: `+1415555${String(++phone).padStart(4, '0')}` }));

  const upload = (caller: Caller, n: number) =>
    t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, leads(n)))
      .expect(202);

  interface DeliveryRow {
    id: string;
    status: string;
    attempt_count: number;
    next_attempt_at: Date | null;
  }
  const deliveriesOf = (endpointId: number): Promise<DeliveryRow[]> =>
    t.db.query(
      `SELECT id, status, attempt_count, next_attempt_at FROM webhook_delivery
        WHERE endpoint_id = $1 ORDER BY id`,
      [endpointId],
    );
  /** Waits until the endpoint's deliveries have these statuses and attempt counts, in id order. */
  const settled = async (
    endpointId: number,
    expected: Array<[string, number]>,
  ): Promise<DeliveryRow[]> => {
    await eventually(async () =>
      expect((await deliveriesOf(endpointId)).map((d) => [d.status, d.attempt_count])).toEqual(
        expected,
      ),
    );
    return deliveriesOf(endpointId);
  };
  const attemptsOf = (
    endpointId: number,
  ): Promise<
    Array<{ delivery_id: string | null; status_code: number | null; attempted_at: Date }>
  > =>
    t.db.query(
      `SELECT delivery_id, status_code, attempted_at FROM webhook_delivery_attempt
        WHERE endpoint_id = $1 AND finished_at IS NOT NULL ORDER BY id`,
      [endpointId],
    );
  const endpointRow = async (id: number) =>
    (
      await t.db.query(
        'SELECT is_enabled, disabled_reason, disabled_at FROM webhook_endpoint WHERE id = $1',
        [id],
      )
    )[0] as { is_enabled: boolean; disabled_reason: string | null; disabled_at: Date | null };
  const auditOf = (endpointId: number) =>
    t.db.query(
      `SELECT account_id, actor_type, actor_user_id, actor_email, ip, action, object_type,
              object_id, details
         FROM audit_log_entry WHERE object_type = 'endpoint' AND object_id = $1 ORDER BY id`,
      [String(endpointId)],
    );

  describe('410 Gone', () => {
    it('disables the endpoint at once, fails the delivery without retries and drops the rest of its batch', async () => {
      const { me, r, id } = await endpointAnswering({ status: 410, body: 'no such hook' });
      const before = Date.now();
      await upload(me, 3); // one batch job of three deliveries

      await eventually(async () => {
        expect((await deliveriesOf(id)).map((d) => d.status).sort()).toEqual([
          'dropped',
          'dropped',
          'failed',
        ]);
      });
      // One request only: the batch's other deliveries were dropped, not sent.
      await sleep(300);
      expect(r.received).toHaveLength(1);
      const deliveries = await deliveriesOf(id);
      const failed = deliveries.find((d) => d.status === 'failed')!;
      expect(failed).toMatchObject({ attempt_count: 1, next_attempt_at: null });
      for (const dropped of deliveries.filter((d) => d.status === 'dropped')) {
        expect(dropped).toMatchObject({ attempt_count: 0, next_attempt_at: null });
      }
      expect(await attemptsOf(id)).toEqual([
        expect.objectContaining({ delivery_id: failed.id, status_code: 410 }),
      ]);

      const row = await endpointRow(id);
      expect(row).toMatchObject({ is_enabled: false, disabled_reason: 'gone' });
      expect(row.disabled_at!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
      expect(row.disabled_at!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);

      const [attempt] = await t.db.query(
        'SELECT id, message_id FROM webhook_delivery_attempt WHERE endpoint_id = $1',
        [id],
      );
      // The test made the endpoint through the service (no entry); the service's change has one.
      expect(await auditOf(id)).toEqual([
        {
          account_id: me.accountId,
          actor_type: 'system',
          actor_user_id: null,
          actor_email: null,
          ip: null,
          action: 'endpoint.disable',
          object_type: 'endpoint',
          object_id: String(id),
          details: {
            reason: 'gone',
            status_code: 410,
            url: r.url,
            attempt_id: Number(attempt.id),
            webhook_id: attempt.message_id,
            delivery_id: Number(failed.id),
          },
        },
      ]);

      // A later event's delivery to it is recorded as skipped (the ledger counts it), and
      // nothing is sent.
      await upload(me, 1);
      await sleep(500);
      const after = await deliveriesOf(id);
      expect(after).toHaveLength(4);
      expect(after[3]).toMatchObject({ status: 'skipped', attempt_count: 0 });
      expect(r.received).toHaveLength(1);

      // The public API shows it disabled, in its unchanged shape.
      const listed = await t
        .http()
        .get(`/api/v1/webhooks/${me.campaignId}/endpoints`)
        .set('Authorization', `Bearer ${me.token}`)
        .expect(200);
      expect(listed.body).toEqual([expect.objectContaining({ id, is_enabled: false })]);
      expect(Object.keys(listed.body[0])).not.toContain('disabled_reason');
    });

    it('enabling it again clears the reason and the time, and deliveries resume', async () => {
      const { me, r, id } = await endpointAnswering((index) => ({
        status: index === 0 ? 410 : 204,
      }));
      await upload(me, 1);
      await eventually(async () =>
        expect(await endpointRow(id)).toMatchObject({ is_enabled: false, disabled_reason: 'gone' }),
      );

      const enabled = await t.app.get(WebhookEndpointAdmin).update(id, { enabled: true });
      expect(enabled.is_enabled).toBe(true);
      expect(await endpointRow(id)).toEqual({
        is_enabled: true,
        disabled_reason: null,
        disabled_at: null,
      });
      await upload(me, 1);
      await r.waitFor(2);
      await settled(id, [
        ['failed', 1],
        ['succeeded', 1],
      ]);
    });

    it('disabling by an admin or operator records `manual`, which a later 410 keeps', async () => {
      const { id } = await endpointAnswering({ status: 410 });
      const admin = t.app.get(WebhookEndpointAdmin);
      await admin.update(id, { enabled: false });
      const manual = await endpointRow(id);
      expect(manual).toMatchObject({ is_enabled: false, disabled_reason: 'manual' });
      expect(manual.disabled_at).toBeInstanceOf(Date);
      // Disabling again changes nothing.
      await admin.update(id, { enabled: false, description: 'still off' });
      expect(await endpointRow(id)).toEqual(manual);

      // A test message is sent even to a disabled endpoint; its 410 keeps the reason.
      const attempt = await t.app.get(DeliveryService).sendTest(id);
      expect(attempt).toMatchObject({ status_code: 410, success: false });
      expect(await endpointRow(id)).toEqual(manual);
      // No `endpoint.disable` entry: the service changed nothing.
      expect(await auditOf(id)).toEqual([]);
    });

    it('a test message answered 410 disables an enabled endpoint too, with its own entry', async () => {
      const { id } = await endpointAnswering({ status: 410 });
      const attempt = await t.app.get(DeliveryService).ping(id);
      expect(attempt).toMatchObject({ status_code: 410, success: false, delivery_id: null });
      expect(await endpointRow(id)).toMatchObject({ is_enabled: false, disabled_reason: 'gone' });
      const entries = await auditOf(id);
      expect(entries[entries.length - 1]).toMatchObject({
        actor_type: 'system',
        action: 'endpoint.disable',
        details: {
          reason: 'gone',
          status_code: 410,
          attempt_id: attempt.id,
          webhook_id: attempt.webhook_id,
          delivery_id: null,
        },
      });
    });

    it('410s answered together disable the endpoint once, with one audit entry', async () => {
      const { id } = await endpointAnswering({ status: 410, delayMs: 100 });
      const deliveries = t.app.get(DeliveryService);
      const attempts = await Promise.all([1, 2, 3, 4, 5].map(() => deliveries.ping(id)));
      expect(attempts.map((a) => a.status_code)).toEqual([410, 410, 410, 410, 410]);
      expect(await endpointRow(id)).toMatchObject({ is_enabled: false, disabled_reason: 'gone' });
      const entries = await auditOf(id);
      expect(entries).toHaveLength(1);
      expect(attempts.map((a) => a.id)).toContain(entries[0].details.attempt_id);
    });

    it('a redelivery answered 410 disables the endpoint and fails its pending delivery', async () => {
      // The first attempt fails: the delivery waits an hour for its retry.
      const { me, id } = await endpointAnswering((index) => ({ status: index === 0 ? 500 : 410 }));
      await upload(me, 1);
      const [delivery] = await settled(id, [['pending', 1]]);
      const attempt = await t.app.get(DeliveryService).redeliver(Number(delivery.id));
      expect(attempt).toMatchObject({ status_code: 410, delivery_id: Number(delivery.id) });
      expect(await deliveriesOf(id)).toEqual([
        expect.objectContaining({ status: 'failed', attempt_count: 2, next_attempt_at: null }),
      ]);
      expect(await endpointRow(id)).toMatchObject({ is_enabled: false, disabled_reason: 'gone' });
    });
  });

  describe('429 and 503 with Retry-After', () => {
    /** The delay from the first attempt to the delivery's `next_attempt_at`, in ms. */
    const scheduledDelay = async (endpointId: number, deliveryId: string) => {
      const [first] = (await attemptsOf(endpointId)).filter((a) => a.delivery_id === deliveryId);
      const delivery = (await deliveriesOf(endpointId)).find((d) => d.id === deliveryId)!;
      return delivery.next_attempt_at!.getTime() - first.attempted_at.getTime();
    };

    it('429 with `Retry-After: 2` moves the next attempt to 2 s instead of an hour (a delivery job)', async () => {
      const { me, r, id } = await endpointAnswering((index) =>
        index === 0 ? { status: 429, headers: { 'Retry-After': '2' } } : { status: 204 },
      );
      await upload(me, 1); // a lone delivery: a job of its own, retried by BullMQ's backoff

      await r.waitFor(1);
      const [delivery] = await settled(id, [['pending', 1]]);
      const delay = await scheduledDelay(id, delivery.id);
      expect(delay).toBeGreaterThanOrEqual(1_900);
      expect(delay).toBeLessThan(3_000);
      const [first, second] = await r.waitFor(2, 8_000);
      expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1_900);
      expect(second.receivedAt - first.receivedAt).toBeLessThan(5_000);
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      await settled(id, [['succeeded', 2]]);
      expect((await attemptsOf(id)).map((a) => a.status_code)).toEqual([429, 204]);
    });

    it('503 with an HTTP-date moves the next attempt of each delivery of a batch to that time', async () => {
      const { me, r, id } = await endpointAnswering((index) =>
        index < 2
          ? {
              status: 503,
              headers: { 'Retry-After': new Date(Date.now() + 3_000).toUTCString() },
            }
          : { status: 204 },
      );
      await upload(me, 2); // one batch job: each failed delivery is queued again on its own

      const pending = await settled(id, [
        ['pending', 1],
        ['pending', 1],
      ]);
      for (const delivery of pending) {
        const delay = await scheduledDelay(id, delivery.id);
        // An HTTP-date has whole seconds: 3 s from the receiver's own Date header.
        expect(delay).toBeGreaterThanOrEqual(1_900);
        expect(delay).toBeLessThan(4_100);
      }
      const received = await r.waitFor(4, 10_000);
      expect(received[2].receivedAt - received[0].receivedAt).toBeGreaterThanOrEqual(1_900);
      expect(received[3].receivedAt - received[1].receivedAt).toBeLessThan(6_000);
      await settled(id, [
        ['succeeded', 2],
        ['succeeded', 2],
      ]);
    });

    it("caps a Retry-After beyond the schedule's last step at that step", async () => {
      const { me, id } = await endpointAnswering({
        status: 429,
        headers: { 'Retry-After': '86400' },
      });
      await upload(me, 1);
      const [delivery] = await settled(id, [['pending', 1]]);
      const delay = await scheduledDelay(id, delivery.id);
      expect(delay).toBeGreaterThan(HOUR_MS - 5_000);
      expect(delay).toBeLessThan(HOUR_MS + 5_000);
    });

    it('keeps the schedule when Retry-After is missing or unparseable, or on another status', async () => {
      const { me, r, id } = await endpointAnswering(
        (index) =>
          [
            { status: 503 },
            { status: 429, headers: { 'Retry-After': 'in a moment' } },
            { status: 500, headers: { 'Retry-After': '2' } },
          ][index % 3],
      );
      await upload(me, 3);
      const pending = await settled(id, [
        ['pending', 1],
        ['pending', 1],
        ['pending', 1],
      ]);
      for (const delivery of pending) {
        const delay = await scheduledDelay(id, delivery.id);
        expect(delay).toBeGreaterThan(HOUR_MS - 5_000);
      }
      await sleep(2_500);
      expect(r.received).toHaveLength(3);
    });
  });
});
