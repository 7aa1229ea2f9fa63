/**
 * Retention (docs/operations.md#retention): real deliveries of today, plus events, deliveries,
 * attempts and rollups written as if recorded 40, 31 and 29 days ago and 10 and 420 days ago;
 * one pass drops the expired attempt partitions, deletes the expired events with their
 * deliveries and prunes the expired rollups, while health, recent rollups, the ledger and
 * today's attempts stay exactly as they were.
 */
import { randomUUID } from 'node:crypto';
import { partitionName, utcDay } from '../src/delivery/attempts/attempt-partitions';
import { ensureAttemptPartitions } from '../src/delivery/attempts/attempt-partitions.repository';
import { DeliveryRetention } from '../src/delivery/retention/delivery-retention.service';
import { givenUser, signIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const DAY_MS = 86_400_000;

describe('Retention (docs/operations.md#retention)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let retention: DeliveryRetention;
  const today = utcDay(Date.now());
  /** Noon UTC `n` days before today. */
  const noonDaysAgo = (n: number) => new Date(today.getTime() - n * DAY_MS + DAY_MS / 2);

  beforeAll(async () => {
    t = await startTestApp({
      DELIVERY_RETENTION_DAYS: '30',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
    });
    receiver = await new WebhookReceiver().start();
    retention = t.app.get(DeliveryRetention);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  /** An event of `campaignId` recorded at `at`, its delivery to `endpointId` and `attempts` attempts. */
  async function recordedAt(campaignId: number, endpointId: number, at: Date, attempts: number) {
    const eventId = randomUUID();
    await t.db.query(
      `INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
       VALUES ($1, $2, 'lead.created', '{"type":"lead.created"}', $3)`,
      [eventId, campaignId, at],
    );
    const [{ id: deliveryId }] = await t.db.query(
      `INSERT INTO webhook_delivery (event_id, endpoint_id, status, attempt_count, created_at)
       VALUES ($1, $2, 'succeeded', $3, $4) RETURNING id`,
      [eventId, endpointId, attempts, at],
    );
    for (let n = 1; n <= attempts; n++) {
      await t.db.query(
        `INSERT INTO webhook_delivery_attempt (endpoint_id, delivery_id, message_id, event_type, attempted_at,
                                               finished_at, duration_ms, success, attempt_number, delivery_created_at)
         VALUES ($1, $2, $3, 'lead.created', $4, $4, 12, $5, $6, $4)`,
        [endpointId, deliveryId, eventId, at, n === attempts, n],
      );
    }
    return { eventId, deliveryId: Number(deliveryId) };
  }

  const rollupRow = (endpointId: number, period: string, start: Date) =>
    t.db.query(
      `INSERT INTO endpoint_delivery_rollup
              (endpoint_id, period, bucket_start, attempts, successes, timeouts, connection_errors,
               redirects, client_errors, server_errors, other_failures, duration_sum_ms, latency,
               first_successes, lag)
       VALUES ($1, $2, $3, 4, 4, 0, 0, 0, 0, 0, 0, 40, '{}', 4, '{}')`,
      [endpointId, period, start],
    );
  const exists = async (table: string) =>
    (await t.db.query('SELECT to_regclass($1) IS NOT NULL AS found', [table]))[0].found as boolean;
  const count = async (sql: string, params: unknown[]) =>
    Number((await t.db.query(sql, params))[0].count);

  it('drops expired attempt partitions and deletes expired events and rollups; health, rollups, ledger and recent attempts stay', async () => {
    const caller = await t.given.caller();
    const { id: endpointId } = await t.given.endpoint(caller.campaignId, receiver.url, [
      'lead.created',
    ]);
    // Today: three real deliveries through the worker.
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(
        uploadBody(caller.campaignId, [
          { phone: '+14155550101' },
          { phone: '+14155550102' },
          { phone: '+14155550103' },
        ]),
      )
      .expect(202);
    const health = () =>
      t
        .http()
        .get(`/api/v1/webhooks/${caller.campaignId}/endpoints/${endpointId}/health`)
        .set('Authorization', `Bearer ${caller.token}`)
        .expect(200)
        .then((res) => res.body as Record<string, unknown>);
    await eventually(async () => expect((await health()).successful_deliveries).toBe(3));

    // The past: partitions for 40 to 31 days ago (the migration made the last 30 days').
    await ensureAttemptPartitions(
      t.db,
      new Date(today.getTime() - 40 * DAY_MS),
      new Date(today.getTime() - 31 * DAY_MS),
    );
    const expired = await recordedAt(caller.campaignId, endpointId, noonDaysAgo(40), 2);
    const lastExpired = await recordedAt(caller.campaignId, endpointId, noonDaysAgo(31), 1);
    const kept = await recordedAt(caller.campaignId, endpointId, noonDaysAgo(29), 3);
    await rollupRow(endpointId, 'day', noonDaysAgo(40)); // kept: 13 months
    await rollupRow(endpointId, 'hour', noonDaysAgo(420)); // older than 13 months
    await rollupRow(endpointId, 'minute', noonDaysAgo(10)); // older than 7 days
    await rollupRow(endpointId, 'minute', noonDaysAgo(3)); // kept
    // Filtered-out counts (docs/webhooks.md#payload-filters): the expired days' go with the events.
    const dayOf = (at: Date) => at.toISOString().slice(0, 10);
    for (const [at, filtered] of [
      [noonDaysAgo(40), 5],
      [noonDaysAgo(31), 6],
      [noonDaysAgo(29), 7],
    ] as const) {
      await t.db.query(
        'INSERT INTO endpoint_filtered_day (endpoint_id, day, filtered) VALUES ($1, $2, $3)',
        [endpointId, dayOf(at), filtered],
      );
    }

    const admin = await signIn(t, await givenUser(t, 'admin', caller.accountId));
    const ledger = (days: number) =>
      t
        .http()
        .get(`/dashboard/api/endpoints/${endpointId}/ledger?days=${days}`)
        .set('Cookie', admin.cookie)
        .expect(200)
        .then((res) => res.body as { days: Array<Record<string, number | string>> });
    const rollupsBefore = await t.db.query(
      `SELECT period, bucket_start, attempts, successes FROM endpoint_delivery_rollup
        WHERE endpoint_id = $1 AND bucket_start >= $2 ORDER BY period, bucket_start`,
      [endpointId, today],
    );
    const healthBefore = await health();
    const ledgerBefore = await ledger(30);
    const recentAttempts = await t.db.query(
      `SELECT id, success FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND delivery_created_at >= $2 ORDER BY id`,
      [endpointId, today],
    );
    expect(recentAttempts).toHaveLength(3);

    const report = await retention.run();

    expect(report).not.toBeNull();
    expect(report!.cutoff).toEqual(new Date(today.getTime() - 30 * DAY_MS));
    const expiredDays = Array.from({ length: 10 }, (_, i) =>
      partitionName(new Date(today.getTime() - (40 - i) * DAY_MS)),
    );
    expect(report!.droppedPartitions).toEqual(expiredDays);
    for (const name of expiredDays) expect(await exists(name)).toBe(false);
    expect(await exists(partitionName(new Date(today.getTime() - 30 * DAY_MS)))).toBe(true);
    // Made ahead: two weeks from today.
    expect(await exists(partitionName(new Date(today.getTime() + 14 * DAY_MS)))).toBe(true);

    // The expired events went with their deliveries and attempts; the kept one stayed whole.
    expect(report!.deletedEvents).toBeGreaterThanOrEqual(2);
    for (const gone of [expired, lastExpired]) {
      expect(await count('SELECT count(*) FROM webhook_event WHERE id = $1', [gone.eventId])).toBe(
        0,
      );
      expect(
        await count('SELECT count(*) FROM webhook_delivery WHERE id = $1', [gone.deliveryId]),
      ).toBe(0);
      expect(
        await count('SELECT count(*) FROM webhook_delivery_attempt WHERE delivery_id = $1', [
          gone.deliveryId,
        ]),
      ).toBe(0);
    }
    expect(
      await count('SELECT count(*) FROM webhook_delivery_attempt WHERE delivery_id = $1', [
        kept.deliveryId,
      ]),
    ).toBe(3);
    expect(
      await t.db.query(
        `SELECT id, success FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND delivery_created_at >= $2 ORDER BY id`,
        [endpointId, today],
      ),
    ).toEqual(recentAttempts);

    expect(
      await t.db.query(
        'SELECT day::text, filtered FROM endpoint_filtered_day WHERE endpoint_id = $1',
        [endpointId],
      ),
    ).toEqual([{ day: dayOf(noonDaysAgo(29)), filtered: 7 }]);

    // Rollups: expired rows pruned, the rest untouched.
    const periods = await t.db.query(
      `SELECT period, bucket_start FROM endpoint_delivery_rollup
        WHERE endpoint_id = $1 AND bucket_start < $2 ORDER BY bucket_start`,
      [endpointId, today],
    );
    expect(periods).toEqual([
      { period: 'day', bucket_start: noonDaysAgo(40) },
      { period: 'minute', bucket_start: noonDaysAgo(3) },
    ]);
    expect(
      await t.db.query(
        `SELECT period, bucket_start, attempts, successes FROM endpoint_delivery_rollup
          WHERE endpoint_id = $1 AND bucket_start >= $2 ORDER BY period, bucket_start`,
        [endpointId, today],
      ),
    ).toEqual(rollupsBefore);

    // Health is all-time and exact: nothing changed. The ledger of the retained days neither,
    // and it never reaches past them.
    expect(await health()).toEqual(healthBefore);
    expect(await ledger(30)).toEqual(ledgerBefore);
    const longest = await ledger(90);
    expect(longest.days).toHaveLength(30);
    expect(longest).toEqual(ledgerBefore);
    const day29 = ledgerBefore.days.find(
      (d) => d.day === noonDaysAgo(29).toISOString().slice(0, 10),
    );
    expect(day29).toMatchObject({ matched: 1, delivered: 1 });

    // A second pass finds nothing to do.
    expect(await retention.run()).toMatchObject({
      droppedPartitions: [],
      deletedEvents: 0,
      deletedRollups: 0,
      madePartitions: [],
    });

    // Deliveries go on as before.
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, [{ phone: '+14155550104' }]))
      .expect(202);
    await eventually(async () => expect((await health()).successful_deliveries).toBe(4));
  });

  it('finishes a detach that a stopped process left pending, then drops the partition', async () => {
    const old = new Date(today.getTime() - 50 * DAY_MS);
    await ensureAttemptPartitions(t.db, old, old);
    const name = partitionName(old);
    // A detach cut off halfway: its first transaction marks the partition "detach pending",
    // its second waits for a query that still reads the table, and is cancelled meanwhile.
    const reader = t.db.createQueryRunner();
    const detacher = t.db.createQueryRunner();
    await reader.connect();
    await detacher.connect();
    try {
      await reader.startTransaction('REPEATABLE READ');
      await reader.query('SELECT count(*) FROM webhook_delivery_attempt');
      const [{ pid }] = await detacher.query('SELECT pg_backend_pid() AS pid');
      const detaching = detacher
        .query(`ALTER TABLE webhook_delivery_attempt DETACH PARTITION "${name}" CONCURRENTLY`)
        .catch((error: Error) => error);
      await eventually(async () => {
        const [row] = await t.db.query(
          'SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = $1::regclass',
          [name],
        );
        expect(row.inhdetachpending).toBe(true);
      });
      await t.db.query('SELECT pg_cancel_backend($1)', [pid]);
      expect(String(await detaching)).toMatch(/cancel/);
      await reader.commitTransaction();
    } finally {
      await reader.release();
      await detacher.release();
    }

    const report = await retention.run();
    expect(report!.droppedPartitions).toContain(name);
    expect(await exists(name)).toBe(false);
  });

  it('lets one worker at a time run a pass: a second one at once returns null', async () => {
    const other = t.db.createQueryRunner();
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock(727401003)');
      expect(await retention.run()).toBeNull();
      await other.query('SELECT pg_advisory_unlock(727401003)');
      expect(await retention.run()).not.toBeNull();
    } finally {
      await other.release();
    }
  });
});
