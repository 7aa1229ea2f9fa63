import { startTestApp, type TestApp, type Caller, uploadBody } from './support/test-app';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import { eventually, sleep } from './support/eventually';
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { DeliveryDispatcher } from '../src/delivery/outbox/delivery.dispatcher';
import { DeliveryProcessor } from '../src/delivery/worker/delivery.processor';
import { DeliverySweeper } from '../src/delivery/worker/delivery.sweeper';
import { DELIVERY_QUEUE, deliveryJobId } from '../src/delivery/outbox/delivery.queue';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { madeUpEvent } from './support/events';

const UPLOAD = '/api/v1/leads/upload';

describe('Webhook delivery (docs/webhooks.md)', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  const upload = (caller: Caller, leads: unknown[]) =>
    t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, leads))
      .expect(202);

  const deliveriesOf = (endpointId: number) =>
    t.db.query(
      'SELECT status, attempt_count FROM webhook_delivery WHERE endpoint_id = $1 ORDER BY id',
      [endpointId],
    );

  const health = async (caller: Caller, endpointId: number) =>
    (
      await t
        .http()
        .get(`/api/v1/webhooks/${caller.campaignId}/endpoints/${endpointId}/health`)
        .set('Authorization', `Bearer ${caller.token}`)
        .expect(200)
    ).body;

  it('delivers signed lead.created and leads.bulk_created events that verify with standardwebhooks', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    const { id, secret } = await t.given.endpoint(me.campaignId, r.url, [
      'lead.created',
      'leads.bulk_created',
    ]);
    const res = await upload(me, [
      {
        phone: '(415) 555-2671',
        first_name: 'Ada',
        email: 'ada@example.com',
        company: 'Analytical',
        title: 'CTO',
      },
      { phone: '+442079460958' },
    ]);

    const received = await r.waitFor(3);
    const bodies = received.map((w) => verifyWebhook(secret, w));
    const [lead] = await t.db.query(
      'SELECT id, created_at FROM lead WHERE phone = $1 AND campaign_id = $2',
      ['+14155552671', me.campaignId],
    );
    const created = bodies.filter((b) => b.type === 'lead.created');
    expect(created).toHaveLength(2);
    expect(created.find((b) => b.data.phone === '+14155552671')).toEqual({
      type: 'lead.created',
      timestamp: expect.stringMatching(/Z$/),
      data: {
        id: Number(lead.id),
        campaign_id: me.campaignId,
        phone: '+14155552671',
        first_name: 'Ada',
        last_name: null,
        email: 'ada@example.com',
        company: 'Analytical',
        title: 'CTO',
        tags: [],
        source: 'api',
        import_id: res.body.import_id,
        created_at: new Date(lead.created_at).toISOString(),
      },
    });
    const bulk = bodies.find((b) => b.type === 'leads.bulk_created');
    expect(bulk?.data).toEqual({
      import_id: res.body.import_id,
      campaign_id: me.campaignId,
      source: 'api',
      tags: [],
      lead_count: 2,
      lead_ids: expect.arrayContaining([Number(lead.id)]),
    });
    for (const w of received) {
      expect(w.headers['content-type']).toBe('application/json');
      expect(w.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(w.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    }
    expect(new Set(received.map((w) => w.headers['webhook-id'])).size).toBe(3);

    await eventually(async () => {
      expect((await deliveriesOf(id)).map((d: { status: string }) => d.status)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
      ]);
      expect(await health(me, id)).toMatchObject({
        total_deliveries: 3,
        successful_deliveries: 3,
        failed_deliveries: 0,
        success_rate: 1,
      });
    });
    const h = await health(me, id);
    expect(h.avg_duration_ms).toBeGreaterThan(0);
    expect(h.last_delivery_is_successful).toBe(true);
    const [listed] = (
      await t
        .http()
        .get(`/api/v1/webhooks/${me.campaignId}/endpoints`)
        .set('Authorization', `Bearer ${me.token}`)
        .expect(200)
    ).body;
    expect(listed.last_delivery_is_successful).toBe(true);
  });

  it('retries a non-2xx on the schedule with the same webhook-id, then gives up', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    r.behaviour = { status: 500, body: 'x'.repeat(3000) };
    const { id, secret } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created']);
    await upload(me, [{ phone: '+14155550100' }]);

    const received = await r.waitFor(3);
    expect(new Set(received.map((w) => w.headers['webhook-id'])).size).toBe(1);
    expect(received[1].receivedAt - received[0].receivedAt).toBeGreaterThanOrEqual(250);
    received.forEach((w) => verifyWebhook(secret, w));
    await eventually(async () =>
      expect(await deliveriesOf(id)).toEqual([{ status: 'failed', attempt_count: 3 }]),
    );
    await sleep(800);
    expect(r.received).toHaveLength(3);
    const attempts = await t.db.query(
      'SELECT status_code, success, response_excerpt FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL',
      [id],
    );
    expect(attempts).toHaveLength(3);
    for (const a of attempts) {
      expect(a).toMatchObject({ status_code: 500, success: false });
      expect(a.response_excerpt).toHaveLength(1024);
    }
    expect(await health(me, id)).toMatchObject({
      total_deliveries: 3,
      successful_deliveries: 0,
      failed_deliveries: 3,
      success_rate: 0,
      last_delivery_is_successful: false,
    });
  });

  it('succeeds on a retry after a failure', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    r.behaviour = (i) => ({ status: i === 0 ? 503 : 200 });
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created']);
    await upload(me, [{ phone: '+14155550100' }]);
    await r.waitFor(2);
    await eventually(async () =>
      expect(await deliveriesOf(id)).toEqual([{ status: 'succeeded', attempt_count: 2 }]),
    );
    expect(await health(me, id)).toMatchObject({
      total_deliveries: 2,
      successful_deliveries: 1,
      failed_deliveries: 1,
      success_rate: 0.5,
      last_delivery_is_successful: true,
    });
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const me = await t.given.caller();
    const target = await receiver();
    const r = await receiver();
    r.behaviour = { status: 302, location: target.url };
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created']);
    await upload(me, [{ phone: '+14155550100' }]);
    await eventually(async () =>
      expect(await deliveriesOf(id)).toEqual([{ status: 'failed', attempt_count: 3 }]),
    );
    expect(target.received).toHaveLength(0);
    const attempts = await t.db.query(
      'SELECT status_code, success, error FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL',
      [id],
    );
    expect(attempts).toEqual(
      Array(3).fill({ status_code: 302, success: false, error: 'HTTP 302' }),
    );
  });

  it('records a refused connection as a failed attempt without a status', async () => {
    const me = await t.given.caller();
    const closed = await new WebhookReceiver().start();
    const url = closed.url;
    await closed.stop();
    const { id } = await t.given.endpoint(me.campaignId, url, ['leads.bulk_created']);
    await upload(me, [{ phone: '+14155550100' }]);
    await eventually(async () =>
      expect(await deliveriesOf(id)).toEqual([{ status: 'failed', attempt_count: 3 }]),
    );
    const attempts = await t.db.query(
      'SELECT status_code, success, error FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL',
      [id],
    );
    expect(attempts).toEqual(
      Array(3).fill({ status_code: null, success: false, error: 'connection refused' }),
    );
    expect(await health(me, id)).toMatchObject({ total_deliveries: 3, failed_deliveries: 3 });
  });

  const allDeliveriesOf = (endpointId: number) =>
    t.db.query(
      `SELECT d.status, d.attempt_count, d.next_attempt_at, e.type
         FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 ORDER BY d.id`,
      [endpointId],
    );

  it('sends nothing to disabled endpoints but records a skipped delivery for each, and nothing for unsubscribed types', async () => {
    const me = await t.given.caller();
    const disabled = await receiver();
    const bulkOnly = await receiver();
    const { id: disabledId } = await t.given.endpoint(
      me.campaignId,
      disabled.url,
      ['lead.created', 'leads.bulk_created'],
      { enabled: false },
    );
    const { id } = await t.given.endpoint(me.campaignId, bulkOnly.url, ['leads.bulk_created']);
    await upload(me, [{ phone: '+14155550100' }, { phone: '+14155550101' }]);
    await bulkOnly.waitFor(1);
    // Several sweeps (every 500 ms): a skipped delivery is never queued nor swept.
    await sleep(1200);
    expect(disabled.received).toHaveLength(0);
    expect(bulkOnly.received).toHaveLength(1);
    const events = await t.db.query(
      'SELECT type FROM webhook_event WHERE campaign_id = $1 ORDER BY type',
      [me.campaignId],
    );
    // lead.created is recorded too: a disabled endpoint subscribes to it.
    expect(events).toEqual([
      { type: 'lead.created' },
      { type: 'lead.created' },
      { type: 'leads.bulk_created' },
    ]);
    expect(await allDeliveriesOf(id)).toEqual([
      { status: 'succeeded', attempt_count: 1, next_attempt_at: null, type: 'leads.bulk_created' },
    ]);
    const skipped = await allDeliveriesOf(disabledId);
    expect(skipped).toHaveLength(3);
    expect(skipped.map((d: { type: string }) => d.type).sort()).toEqual([
      'lead.created',
      'lead.created',
      'leads.bulk_created',
    ]);
    for (const d of skipped) {
      expect(d).toMatchObject({ status: 'skipped', attempt_count: 0, next_attempt_at: null });
    }
    const attempts = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_delivery_attempt WHERE endpoint_id = $1',
      [disabledId],
    );
    expect(attempts[0].n).toBe(0);
    // Counted nowhere in health.
    expect(await health(me, disabledId)).toMatchObject({
      is_enabled: false,
      total_deliveries: 0,
      successful_deliveries: 0,
      failed_deliveries: 0,
      last_delivery_at: null,
    });
  });

  it('records an event only disabled endpoints subscribe to, with skipped deliveries only', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created'], {
      enabled: false,
    });
    await upload(me, [{ phone: '+14155550100' }]);
    const recorded = await t.app
      .get(WebhookEventPublisher)
      .publish(me.campaignId, [
        madeUpEvent('leads.bulk_created', { n: 1 }),
        madeUpEvent('form.submitted', {}),
      ]);
    expect(recorded.deliveries).toEqual([]);
    expect(recorded.events).toEqual([
      {
        id: expect.any(String),
        type: 'leads.bulk_created',
        createdAt: expect.any(Date),
        deliveries: 0,
        skipped: 1,
      },
    ]);
    await sleep(1200);
    expect(r.received).toHaveLength(0);
    const events = await t.db.query(
      'SELECT type FROM webhook_event WHERE campaign_id = $1 ORDER BY created_at',
      [me.campaignId],
    );
    expect(events).toEqual([{ type: 'leads.bulk_created' }, { type: 'leads.bulk_created' }]);
    expect(await deliveriesOf(id)).toEqual([
      { status: 'skipped', attempt_count: 0 },
      { status: 'skipped', attempt_count: 0 },
    ]);
  });

  it('records a skipped delivery for an endpoint disabled inside the recording transaction', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['call.completed']);
    const publisher = t.app.get(WebhookEventPublisher);
    // The endpoint is read in the caller's transaction: what that transaction sees decides.
    const recorded = await t.db.transaction(async (manager) => {
      await manager.query(
        `UPDATE webhook_endpoint SET is_enabled = false, disabled_reason = 'manual', disabled_at = now()
          WHERE id = $1`,
        [id],
      );
      return publisher.record(manager, me.campaignId, [madeUpEvent('call.completed', {})]);
    });
    await publisher.dispatch(recorded);
    expect(recorded.events[0]).toMatchObject({ deliveries: 0, skipped: 1 });
    await sleep(700);
    expect(r.received).toHaveLength(0);
    expect(await deliveriesOf(id)).toEqual([{ status: 'skipped', attempt_count: 0 }]);
  });

  it('records no event at all when no endpoint subscribes', async () => {
    const me = await t.given.caller();
    await upload(me, [{ phone: '+14155550100' }]);
    const events = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_event WHERE campaign_id = $1',
      [me.campaignId],
    );
    expect(events[0].n).toBe(0);
  });

  it('drops a delivery whose endpoint was disabled before its retry', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    r.behaviour = { status: 500 };
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created']);
    await upload(me, [{ phone: '+14155550100' }]);
    await r.waitFor(1);
    await t.app.get(WebhookEndpointAdmin).update(id, { enabled: false });
    await eventually(async () =>
      expect(await deliveriesOf(id)).toEqual([{ status: 'dropped', attempt_count: 1 }]),
    );
    await sleep(700);
    expect(r.received).toHaveLength(1);
  });

  it('keeps health exact over a known mix of outcomes, pings included', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created']);
    const deliveries = t.app.get(DeliveryService);
    r.behaviour = { status: 204 };
    expect(await deliveries.ping(id)).toMatchObject({ success: true, status_code: 204 });
    r.behaviour = { status: 404 };
    expect(await deliveries.ping(id)).toMatchObject({ success: false, status_code: 404 });
    r.behaviour = { status: 200 };
    await upload(me, [{ phone: '+14155550100' }]);
    await eventually(async () =>
      expect(await deliveriesOf(id)).toEqual([{ status: 'succeeded', attempt_count: 1 }]),
    );

    const attempts: Array<{ duration_ms: number; success: boolean; attempted_at: Date }> =
      await t.db.query(
        'SELECT duration_ms, success, attempted_at FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL ORDER BY attempted_at',
        [id],
      );
    expect(attempts).toHaveLength(3);
    const h = await health(me, id);
    expect(h).toEqual({
      endpoint_id: id,
      url: r.url,
      is_enabled: true,
      total_deliveries: 3,
      successful_deliveries: 2,
      failed_deliveries: 1,
      success_rate: 2 / 3,
      last_delivery_at: attempts[2].attempted_at.toISOString(),
      last_delivery_is_successful: true,
      avg_duration_ms: expect.any(Number),
    });
    const mean = attempts.reduce((sum, a) => sum + a.duration_ms, 0) / 3;
    // Rounded to 3 decimals (1 µs), so no binary noise such as 22.913250000000005 shows.
    expect(h.avg_duration_ms).toBeCloseTo(mean, 3);
    expect(String(h.avg_duration_ms)).toMatch(/^\d+(\.\d{1,3})?$/);
  });

  it('signs with both secrets during a rotation', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    const { id, secret: oldSecret } = await t.given.endpoint(me.campaignId, r.url, [
      'leads.bulk_created',
    ]);
    const newSecret = (await t.app.get(WebhookEndpointAdmin).rotateSecret(id)).secret!;
    await upload(me, [{ phone: '+14155550100' }]);
    const [w] = await r.waitFor(1);
    expect(String(w.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(oldSecret, w).type).toBe('leads.bulk_created');
    expect(verifyWebhook(newSecret, w).type).toBe('leads.bulk_created');
  });

  it('delivers 1,000 lead.created events as exactly 1,000 deliveries with distinct webhook-ids', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    const { id, secret } = await t.given.endpoint(me.campaignId, r.url, ['lead.created']);
    const leads = Array.from({ length: 1000 }, (_, i) => ({
      phone: `+1212555${String(i).padStart(4, '0')}`,
    }));
    const res = await upload(me, leads);
    expect(res.body.valid_count - res.body.duplicate_count).toBe(1000);
    const received = await r.waitFor(1000, 30_000);
    await sleep(500);
    expect(r.received).toHaveLength(1000);
    expect(new Set(received.map((w) => w.headers['webhook-id'])).size).toBe(1000);
    const phones = new Set(received.map((w) => verifyWebhook(secret, w).data.phone));
    expect(phones.size).toBe(1000);
    await eventually(async () => expect((await health(me, id)).successful_deliveries).toBe(1000));
  });

  describe('batches (docs/reliability.md#batches)', () => {
    it('retries a delivery that failed in a batch as a job of its own, the others once each', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      const { id } = await t.given.endpoint(me.campaignId, r.url, ['lead.created']);
      let failed = false;
      // The first request about the fourth lead fails; every other request succeeds.
      r.behaviour = (index) => {
        if (failed || !r.received[index].body.includes('+12125557003')) return { status: 204 };
        failed = true;
        return { status: 503 };
      };
      await upload(
        me,
        Array.from({ length: 10 }, (_, i) => ({ phone: `+1212555700${i}` })),
      );
      const received = await r.waitFor(11);
      await sleep(700);
      expect(r.received).toHaveLength(11);
      const ids = received.map((w) => String(w.headers['webhook-id']));
      expect(new Set(ids).size).toBe(10);
      const rows = await t.db.query(
        `SELECT a.attempt_number, a.success, a.status_code
           FROM webhook_delivery_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
          WHERE d.endpoint_id = $1 ORDER BY a.id`,
        [id],
      );
      expect(rows).toHaveLength(11);
      expect(rows.filter((row: { success: boolean }) => !row.success)).toEqual([
        { attempt_number: 1, success: false, status_code: 503 },
      ]);
      expect(rows.filter((row: { attempt_number: number }) => row.attempt_number === 2)).toEqual([
        { attempt_number: 2, success: true, status_code: 204 },
      ]);
      expect(await deliveriesOf(id)).toEqual([
        ...Array.from({ length: 3 }, () => ({ status: 'succeeded', attempt_count: 1 })),
        { status: 'succeeded', attempt_count: 2 },
        ...Array.from({ length: 6 }, () => ({ status: 'succeeded', attempt_count: 1 })),
      ]);
    });

    it('the sweeper leaves deliveries waiting in a queued batch to it, and re-queues lost ones', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      const endpoint = await t.given.endpoint(me.campaignId, r.url, ['call.completed']);
      const insert = (count: number, due: string): Promise<Array<{ id: string }>> =>
        t.db.query(
          `WITH e AS (
             INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
             SELECT gen_random_uuid(), $1, 'call.completed', '{}', now() FROM generate_series(1, $3::int)
             RETURNING id)
           INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at)
           SELECT id, $2, 'pending', 0, ${due} FROM e RETURNING id`,
          [me.campaignId, endpoint.id, count],
        );
      const worker = t.app.get(DeliveryProcessor).worker;
      await worker.pause();
      try {
        // A backlog: a batch queued as its deliveries were committed, not taken yet.
        const batched = (await insert(5, 'now()')).map((row) => Number(row.id));
        const dispatcher = t.app.get(DeliveryDispatcher);
        await dispatcher.enqueue(batched.map((id) => ({ id, endpointId: endpoint.id })));
        // Deliveries committed an hour ago whose jobs Redis lost.
        const lost = (await insert(3, "now() - interval '1 hour'")).map((row) => Number(row.id));
        await sleep(1_200); // the batch's deliveries are now overdue by more than the interval
        await t.app.get(DeliverySweeper).sweep();
        const queue = t.app.get<Queue>(getQueueToken(DELIVERY_QUEUE));
        for (const id of lost) expect(await queue.getJob(deliveryJobId(id))).toBeDefined();
        for (const id of batched) expect(await queue.getJob(deliveryJobId(id))).toBeUndefined();
      } finally {
        await worker.resume();
      }
      await r.waitFor(8);
      await sleep(700);
      expect(r.received).toHaveLength(8);
      expect(new Set(r.received.map((w) => w.headers['webhook-id'])).size).toBe(8);
    });

    it('holds a job of a delivery that is not due yet until it is, then sends it once', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      const endpoint = await t.given.endpoint(me.campaignId, r.url, ['call.completed']);
      const [row] = await t.db.query(
        `WITH e AS (
           INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
           VALUES (gen_random_uuid(), $1, 'call.completed', '{}', now()) RETURNING id)
         INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at)
         SELECT id, $2, 'pending', 0, now() + interval '3 seconds' FROM e
         RETURNING id, extract(epoch FROM next_attempt_at) * 1000 AS due_ms`,
        [me.campaignId, endpoint.id],
      );
      // As a batch's retry is queued next to a job the sweeper queued earlier.
      await t.app
        .get(DeliveryDispatcher)
        .requeue([{ id: Number(row.id), endpointId: endpoint.id }]);
      await sleep(1_500);
      expect(r.received).toHaveLength(0);
      const [w] = await r.waitFor(1, 10_000);
      // Within the 1 s a retry may come early by PostgreSQL's clock.
      expect(w.receivedAt).toBeGreaterThanOrEqual(Number(row.due_ms) - 1_000);
      await sleep(700);
      expect(r.received).toHaveLength(1);
      expect(await deliveriesOf(endpoint.id)).toEqual([{ status: 'succeeded', attempt_count: 1 }]);
    });

    it('sends a delivery queued in a batch and in jobs of its own at the same time once', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      r.behaviour = { status: 204, delayMs: 50 };
      const endpoint = await t.given.endpoint(me.campaignId, r.url, ['call.completed']);
      const rows: Array<{ id: string }> = await t.db.query(
        `WITH e AS (
           INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
           SELECT gen_random_uuid(), $1, 'call.completed', '{}', now() FROM generate_series(1, 40)
           RETURNING id)
         INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, next_attempt_at)
         SELECT id, $2, 'pending', 0, now() FROM e RETURNING id`,
        [me.campaignId, endpoint.id],
      );
      const deliveries = rows.map((row) => ({ id: Number(row.id), endpointId: endpoint.id }));
      const dispatcher = t.app.get(DeliveryDispatcher);
      // The batch, the same deliveries one job each (as the sweeper queues them), the batch again.
      await Promise.all([
        dispatcher.enqueue(deliveries),
        dispatcher.requeue(deliveries),
        dispatcher.enqueue(deliveries),
      ]);
      await r.waitFor(40);
      await sleep(1_000);
      expect(r.received).toHaveLength(40);
      expect(new Set(r.received.map((w) => w.headers['webhook-id'])).size).toBe(40);
      const [counts] = await t.db.query(
        `SELECT count(*)::int AS attempts, count(DISTINCT delivery_id)::int AS deliveries,
                count(*) FILTER (WHERE attempt_number = 1)::int AS first_attempts
           FROM webhook_delivery_attempt WHERE endpoint_id = $1`,
        [endpoint.id],
      );
      expect(counts).toEqual({ attempts: 40, deliveries: 40, first_attempts: 40 });
      expect((await health(me, endpoint.id)).total_deliveries).toBe(40);
    });
  });

  it('delivers through the sweeper when queuing after the commit fails', async () => {
    const me = await t.given.caller();
    const r = await receiver();
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created']);
    const dispatcher = t.app.get(DeliveryDispatcher);
    const enqueue = jest
      .spyOn(dispatcher, 'enqueue')
      .mockRejectedValueOnce(new Error('injected: Redis unreachable'));
    try {
      await upload(me, [{ phone: '+14155550100' }]);
      expect(enqueue).toHaveBeenCalledTimes(1);
      const [w] = await r.waitFor(1);
      const [event] = await t.db.query('SELECT id FROM webhook_event WHERE campaign_id = $1', [
        me.campaignId,
      ]);
      expect(w.headers['webhook-id']).toBe(event.id);
      await eventually(async () =>
        expect(await deliveriesOf(id)).toEqual([{ status: 'succeeded', attempt_count: 1 }]),
      );
    } finally {
      enqueue.mockRestore();
    }
  });
});

describe('A receiver slower than the 10-second limit', () => {
  let t: TestApp;
  let r: WebhookReceiver;
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h' });
    r = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await t.close();
    await r.stop();
  });

  it('counts an answer after 11 seconds as a failed attempt of 10,000 ms', async () => {
    const me = await t.given.caller();
    r.behaviour = { status: 200, delayMs: 11_000 };
    const { id } = await t.given.endpoint(me.campaignId, r.url, ['leads.bulk_created']);
    await t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${me.token}`)
      .send(uploadBody(me.campaignId, [{ phone: '+14155550100' }]))
      .expect(202);
    const deadline = Date.now() + 20_000;
    let attempts: Array<{
      success: boolean;
      duration_ms: number;
      status_code: number | null;
      error: string;
    }> = [];
    while (attempts.length === 0 && Date.now() < deadline) {
      await sleep(250);
      attempts = await t.db.query(
        'SELECT success, duration_ms, status_code, error FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL',
        [id],
      );
    }
    expect(attempts).toEqual([
      { success: false, duration_ms: 10_000, status_code: null, error: 'timed out after 10000 ms' },
    ]);
    const [endpoint] = await t.db.query(
      'SELECT failed_deliveries, total_duration_ms FROM webhook_endpoint WHERE id = $1',
      [id],
    );
    expect(endpoint).toEqual({ failed_deliveries: 1, total_duration_ms: 10_000 });
    const [delivery] = await t.db.query(
      'SELECT status, attempt_count FROM webhook_delivery WHERE endpoint_id = $1',
      [id],
    );
    expect(delivery).toEqual({ status: 'pending', attempt_count: 1 });
  }, 30_000);
});

describe('Address policy (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let t: TestApp;
  let r: WebhookReceiver;
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_SCHEDULE: '1h' });
    r = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await t.close();
    await r.stop();
  });

  it.each([
    ['an IP literal', (url: string) => url],
    ['a name resolving to loopback', (url: string) => url.replace('127.0.0.1', 'localhost')],
  ])('refuses %s and records the refusal', async (_name, toUrl) => {
    const me = await t.given.caller();
    const { id } = await t.given.endpoint(me.campaignId, toUrl(r.url), ['leads.bulk_created']);
    const attempt = await t.app.get(DeliveryService).ping(id);
    expect(attempt).toMatchObject({
      success: false,
      status_code: null,
      error: expect.stringMatching(/^refused: .* not a public address$/),
    });
    expect(r.received).toHaveLength(0);
  });
});
