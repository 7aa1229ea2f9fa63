import { DataSource } from 'typeorm';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';
import { verifyWebhook, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';
import { eventually } from './support/eventually';
import { withAdmin, dropDatabase } from './support/databases';
import { TEST_DATABASE_URL } from './support/env';
import { InvalidInputError, NotFoundError } from '../src/common/domain-error';
import { buildDataSourceOptions } from '../src/database/database-options';
import { MIGRATIONS } from '../src/database/migrations';
import { DeliveryLog1795500000001 } from '../src/database/migrations/1795500000001-DeliveryLog';
import { DeliveryService } from '../src/delivery/attempts/delivery.service';
import type { DeliveryLogItem, DeliveryLogQuery } from '../src/delivery/attempts/delivery-log';
import { EVENT_EXAMPLES } from '../src/webhooks/event-examples.constants';
import { WebhookEndpointAdmin } from '../src/webhooks/webhook-endpoint-admin.service';

const UPLOAD = '/api/v1/leads/upload';
const ITEM_KEYS = [
  'attempted_at',
  'delivery_id',
  'duration_ms',
  'endpoint_id',
  'error',
  'event_type',
  'id',
  'status_code',
  'success',
  'webhook_id',
];

describe('Delivery log, attempt detail and test events (docs/dashboard.md#delivery-log)', () => {
  let t: TestApp;
  let deliveries: DeliveryService;
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    // No retries within a test: a failed scheduled attempt stays one attempt.
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h' });
    deliveries = t.app.get(DeliveryService);
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

  /** Every page of the log for `query`, following next_cursor; checks each page's size. */
  const allPages = async (endpointId: number, query: DeliveryLogQuery, limit: number) => {
    const items: DeliveryLogItem[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await deliveries.deliveryLog(endpointId, { ...query, limit, cursor });
      items.push(...page.items);
      if (page.next_cursor === null) {
        expect(page.items.length).toBeLessThanOrEqual(limit);
        return items;
      }
      expect(page.items).toHaveLength(limit);
      cursor = page.next_cursor;
    }
    throw new Error('the log never ended');
  };

  const ids = (items: Array<{ id: number }>) => items.map((item) => item.id);

  describe('the log', () => {
    let me: Caller;
    let r: WebhookReceiver;
    let endpointId: number;

    beforeAll(async () => {
      me = await t.given.caller();
      r = await receiver();
      ({ id: endpointId } = await t.given.endpoint(me.campaignId, r.url, [
        'lead.created',
        'leads.bulk_created',
      ]));
      // Three scheduled deliveries (2 × lead.created, 1 × leads.bulk_created) that succeed…
      await upload(me, [{ phone: '+14155550100' }, { phone: '+14155550101' }]);
      await eventually(async () => {
        const rows = await t.db.query(
          `SELECT count(*)::int AS n FROM webhook_delivery WHERE endpoint_id = $1 AND status = 'succeeded'`,
          [endpointId],
        );
        expect(rows[0].n).toBe(3);
      });
      // …then a failed ping, a failed call.completed test event and a successful ping.
      r.behaviour = { status: 500, body: 'nope' };
      await deliveries.ping(endpointId);
      await deliveries.sendTest(endpointId, 'call.completed');
      r.behaviour = { status: 204 };
      await deliveries.ping(endpointId);
    });

    it('lists finished attempts newest first, with exactly the documented fields', async () => {
      // An attempt in flight (begun, not finished) is not in the log.
      await t.db.query(
        `INSERT INTO webhook_delivery_attempt (endpoint_id, message_id, attempted_at, duration_ms, success)
         VALUES ($1, 'ping_in_flight', now(), 0, false)`,
        [endpointId],
      );
      try {
        const page = await deliveries.deliveryLog(endpointId);
        expect(page.next_cursor).toBeNull();
        expect(page.items).toHaveLength(6);
        for (const item of page.items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
        const rows = await t.db.query(
          `SELECT id FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL
            ORDER BY attempted_at DESC, id DESC`,
          [endpointId],
        );
        expect(ids(page.items)).toEqual(rows.map((row: { id: string }) => Number(row.id)));
        expect(page.items.map((item) => [item.event_type, item.success])).toEqual([
          [null, true],
          ['call.completed', false],
          [null, false],
          ...(page.items.slice(3).map((item) => [item.event_type, true]) as Array<
            [string, boolean]
          >),
        ]);
        expect(
          page.items
            .slice(3)
            .map((item) => item.event_type)
            .sort(),
        ).toEqual(['lead.created', 'lead.created', 'leads.bulk_created']);
        const [newestPing, test, failedPing] = page.items;
        expect(newestPing).toMatchObject({
          delivery_id: null,
          endpoint_id: endpointId,
          webhook_id: expect.stringMatching(/^ping_[0-9a-f-]{36}$/),
          status_code: 204,
          error: null,
        });
        expect(test).toMatchObject({
          delivery_id: null,
          webhook_id: expect.stringMatching(/^test_[0-9a-f-]{36}$/),
          status_code: 500,
          error: 'HTTP 500',
        });
        expect(failedPing.status_code).toBe(500);
        for (const item of page.items.slice(3)) {
          expect(item.delivery_id).toEqual(expect.any(Number));
          expect(item.attempted_at).toBeInstanceOf(Date);
          expect(item.duration_ms).toBeGreaterThan(0);
        }
        // The stored type of each delivery attempt is its event's.
        const joined = await t.db.query(
          `SELECT a.event_type, e.type FROM webhook_delivery_attempt a
             JOIN webhook_delivery d ON d.id = a.delivery_id JOIN webhook_event e ON e.id = d.event_id
            WHERE a.endpoint_id = $1`,
          [endpointId],
        );
        expect(joined).toHaveLength(3);
        for (const row of joined) expect(row.event_type).toBe(row.type);
        // Pings are stored as `ping` (the index filters them by equality), shown as null.
        const stored = await t.db.query(
          `SELECT event_type FROM webhook_delivery_attempt
            WHERE endpoint_id = $1 AND delivery_id IS NULL AND finished_at IS NOT NULL ORDER BY id`,
          [endpointId],
        );
        expect(stored.map((row: { event_type: string }) => row.event_type)).toEqual([
          'ping',
          'call.completed',
          'ping',
        ]);
      } finally {
        await t.db.query(
          `DELETE FROM webhook_delivery_attempt WHERE message_id = 'ping_in_flight' AND endpoint_id = $1`,
          [endpointId],
        );
      }
    });

    it.each<[string, DeliveryLogQuery, string]>([
      ['failed', { outcome: 'failed' }, 'NOT a.success'],
      ['succeeded', { outcome: 'succeeded' }, 'a.success'],
      ['pings', { event_type: 'ping' }, `a.message_id LIKE 'ping\\_%'`],
      [
        'failed pings',
        { event_type: 'ping', outcome: 'failed' },
        `a.message_id LIKE 'ping\\_%' AND NOT a.success`,
      ],
      ['lead.created', { event_type: 'lead.created' }, `e.type = 'lead.created'`],
      [
        'leads.bulk_created',
        { event_type: 'leads.bulk_created', outcome: 'succeeded' },
        `e.type = 'leads.bulk_created'`,
      ],
      ['test call.completed', { event_type: 'call.completed' }, `a.message_id LIKE 'test\\_%'`],
      ['failed lead.created: none', { event_type: 'lead.created', outcome: 'failed' }, 'false'],
      ['form.submitted: none', { event_type: 'form.submitted' }, 'false'],
    ])('filters %s', async (_name, query, where) => {
      const expected = await t.db.query(
        `SELECT a.id FROM webhook_delivery_attempt a
           LEFT JOIN webhook_delivery d ON d.id = a.delivery_id
           LEFT JOIN webhook_event e ON e.id = d.event_id
          WHERE a.endpoint_id = $1 AND a.finished_at IS NOT NULL AND ${where}
          ORDER BY a.attempted_at DESC, a.id DESC`,
        [endpointId],
      );
      const page = await deliveries.deliveryLog(endpointId, query);
      expect(ids(page.items)).toEqual(expected.map((row: { id: string }) => Number(row.id)));
      for (const item of page.items) {
        if (query.outcome) expect(item.success).toBe(query.outcome === 'succeeded');
        if (query.event_type === 'ping') expect(item.event_type).toBeNull();
        else if (query.event_type) expect(item.event_type).toBe(query.event_type);
      }
    });

    it('filters a time range [from, to)', async () => {
      const { items } = await deliveries.deliveryLog(endpointId);
      // Attempts of one batch may share a millisecond: compare with the table, bounds included.
      const between = async (from: Date, to: Date, where = 'true') =>
        (
          await t.db.query(
            `SELECT id FROM webhook_delivery_attempt
              WHERE endpoint_id = $1 AND finished_at IS NOT NULL AND attempted_at >= $2
                AND attempted_at < $3 AND ${where}
              ORDER BY attempted_at DESC, id DESC`,
            [endpointId, from, to],
          )
        ).map((row: { id: string }) => Number(row.id));
      // From the 4th newest (inclusive) to the newest (exclusive).
      const [from, to] = [items[3].attempted_at, items[0].attempted_at];
      const inRange = await deliveries.deliveryLog(endpointId, {
        from: from.toISOString(),
        to,
      });
      expect(ids(inRange.items)).toEqual(await between(from, to));
      expect(ids(inRange.items)).toContain(items[3].id);
      expect(ids(inRange.items)).not.toContain(items[0].id);
      expect(ids(inRange.items)).toEqual(expect.arrayContaining(ids(items.slice(1, 4))));
      const failedInRange = await deliveries.deliveryLog(endpointId, {
        from,
        to: to.toISOString(),
        outcome: 'failed',
      });
      expect(ids(failedInRange.items)).toEqual(await between(from, to, 'NOT success'));
      expect(ids(failedInRange.items)).toEqual(ids(items.slice(1, 3)));
      const later = await deliveries.deliveryLog(endpointId, {
        from: new Date(items[0].attempted_at.getTime() + 1),
      });
      expect(later).toEqual({ items: [], next_cursor: null });
    });

    it('belongs to one endpoint', async () => {
      const other = await t.given.endpoint(me.campaignId, r.url, ['lead.created']);
      expect(await deliveries.deliveryLog(other.id)).toEqual({ items: [], next_cursor: null });
      await expect(deliveries.deliveryLog(2_147_480_000)).rejects.toThrow(NotFoundError);
      await expect(deliveries.deliveryLog(2_147_480_000)).rejects.toThrow(
        'webhook endpoint 2147480000 does not exist',
      );
    });

    it('keeps the CLI listing (delivery list) as documented, response excerpts included', async () => {
      const listed = await deliveries.listAttempts(endpointId, 1000);
      const { items } = await deliveries.deliveryLog(endpointId);
      expect(ids(listed)).toEqual(ids(items));
      expect(Object.keys(listed[0]).sort()).toEqual([...ITEM_KEYS, 'response_excerpt'].sort());
      expect(listed[1].response_excerpt).toBe('nope');
      expect(ids(await deliveries.listAttempts(endpointId, 2))).toEqual(ids(items.slice(0, 2)));
    });
  });

  describe('paging', () => {
    let endpointId: number;
    let r: WebhookReceiver;

    beforeAll(async () => {
      const me = await t.given.caller();
      r = await receiver();
      ({ id: endpointId } = await t.given.endpoint(me.campaignId, r.url, ['lead.created']));
      r.behaviour = (i) => ({ status: i % 3 === 0 ? 503 : 200 });
      for (let i = 0; i < 23; i++) await deliveries.ping(endpointId);
      // Ties: seven attempts share one instant, five the next microsecond, three the one before.
      const rows: Array<{ id: string }> = await t.db.query(
        'SELECT id FROM webhook_delivery_attempt WHERE endpoint_id = $1 ORDER BY random()',
        [endpointId],
      );
      const set = (at: string, group: Array<{ id: string }>) =>
        t.db.query('UPDATE webhook_delivery_attempt SET attempted_at = $1 WHERE id = ANY($2)', [
          at,
          group.map((row) => row.id),
        ]);
      await set('2026-11-22 10:00:00.123456+00', rows.slice(0, 7));
      await set('2026-11-22 10:00:00.123457+00', rows.slice(7, 12));
      await set('2026-11-22 10:00:00.123455+00', rows.slice(12, 15));
    });

    it.each([1, 2, 4, 5, 7, 22, 23, 100])(
      'walks all 23 attempts by pages of %i, in order, none twice, none missed',
      async (limit) => {
        const expected = await t.db.query(
          `SELECT id FROM webhook_delivery_attempt WHERE endpoint_id = $1 AND finished_at IS NOT NULL
            ORDER BY attempted_at DESC, id DESC`,
          [endpointId],
        );
        const walked = await allPages(endpointId, {}, limit);
        expect(ids(walked)).toEqual(expected.map((row: { id: string }) => Number(row.id)));
        expect(new Set(ids(walked)).size).toBe(23);
      },
    );

    it('walks a filtered log (failed, in a range) the same way', async () => {
      const expected = await t.db.query(
        `SELECT id FROM webhook_delivery_attempt
          WHERE endpoint_id = $1 AND finished_at IS NOT NULL AND NOT success
            AND attempted_at >= '2026-11-22 10:00:00.123Z' AND attempted_at < '2026-11-22 10:00:00.124Z'
          ORDER BY attempted_at DESC, id DESC`,
        [endpointId],
      );
      const walked = await allPages(
        endpointId,
        {
          outcome: 'failed',
          event_type: 'ping',
          from: '2026-11-22T10:00:00.123Z',
          to: '2026-11-22T10:00:00.124Z',
        },
        2,
      );
      expect(ids(walked)).toEqual(expected.map((row: { id: string }) => Number(row.id)));
    });

    it('ends with next_cursor null exactly when nothing is left', async () => {
      const all = await deliveries.deliveryLog(endpointId, { limit: 23 });
      expect(all.items).toHaveLength(23);
      expect(all.next_cursor).toBeNull();
      const first = await deliveries.deliveryLog(endpointId, { limit: 22 });
      expect(first.next_cursor).toEqual(expect.any(String));
      const last = await deliveries.deliveryLog(endpointId, {
        limit: 22,
        cursor: first.next_cursor!,
      });
      expect(ids(last.items)).toEqual([all.items[22].id]);
      expect(last.next_cursor).toBeNull();
    });

    it('a new attempt does not shift the pages after the first', async () => {
      const first = await deliveries.deliveryLog(endpointId, { limit: 10 });
      await deliveries.ping(endpointId);
      const second = await deliveries.deliveryLog(endpointId, {
        limit: 10,
        cursor: first.next_cursor!,
      });
      const expected = (await deliveries.deliveryLog(endpointId, { limit: 21 })).items.slice(11);
      expect(ids(second.items)).toEqual(ids(expected));
    });

    it.each<[string, DeliveryLogQuery, string]>([
      ['a cursor that is not base64url', { cursor: 'not a cursor!' }, 'cursor'],
      [
        'a cursor of another format',
        { cursor: Buffer.from('{"id":1}').toString('base64url') },
        'cursor',
      ],
      ['a truncated cursor', { cursor: 'djE6MTc5NTUwMDAwMDEyMzQ1Nj' }, 'cursor'],
      ['a limit of 0', { limit: 0 }, 'limit'],
      ['a limit of 101', { limit: '101' }, 'limit'],
      ['an unknown outcome', { outcome: 'ok' }, 'outcome'],
      ['an unknown event type', { event_type: 'lead.deleted' }, 'event_type'],
      ['a time without a zone', { from: '2026-11-22T10:00:00' }, 'from'],
      ['an empty range', { from: '2026-11-22T10:00:00Z', to: '2026-11-22T09:00:00Z' }, 'to'],
    ])('rejects %s with InvalidInputError', async (_name, query, field) => {
      const error = await deliveries.deliveryLog(endpointId, query).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error).toMatchObject({ code: 'invalid_input', field });
    });
  });

  describe('attempt detail', () => {
    const signatureShown = (sent: string) =>
      sent
        .split(' ')
        .map((s) => `${s.slice(0, 15)}…`)
        .join(' ');

    const expectHeadersAsSent = (shown: Record<string, string> | null, w: ReceivedWebhook) => {
      expect(shown).toEqual({
        'content-type': 'application/json',
        'user-agent': 'campaign-api-webhooks/1',
        'webhook-id': w.headers['webhook-id'],
        'webhook-timestamp': w.headers['webhook-timestamp'],
        'webhook-signature': signatureShown(String(w.headers['webhook-signature'])),
      });
      expect(Object.keys(shown!)).toEqual([
        'content-type',
        'user-agent',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
    };

    /** Nothing of a whole signature or of a secret is stored with the attempt. */
    const expectNoSecretStored = async (
      attemptId: number,
      w: ReceivedWebhook,
      secrets: string[],
    ) => {
      const [row] = await t.db.query(
        'SELECT row_to_json(a)::text AS text FROM webhook_delivery_attempt a WHERE id = $1',
        [attemptId],
      );
      for (const signature of String(w.headers['webhook-signature']).split(' ')) {
        expect(row.text).not.toContain(signature.slice(3, 16));
      }
      for (const secret of secrets) expect(row.text).not.toContain(secret.slice(6, 18));
    };

    it('shows a delivery as sent: URL, headers (signatures truncated), the exact body, the response start', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      r.behaviour = {
        status: 202,
        body: '{"queued":true}',
        headers: { 'x-request-id': 'req_8f2c', 'content-type': 'application/json' },
      };
      const { id: endpointId, secret: oldSecret } = await t.given.endpoint(me.campaignId, r.url, [
        'leads.bulk_created',
      ]);
      const secret = (await t.app.get(WebhookEndpointAdmin).rotateSecret(endpointId)).secret!;
      await upload(me, [{ phone: '+14155550100' }]);
      const [w] = await r.waitFor(1);
      expect(verifyWebhook(secret, w).type).toBe('leads.bulk_created');
      await eventually(async () =>
        expect((await deliveries.deliveryLog(endpointId)).items).toHaveLength(1),
      );
      const [item] = (await deliveries.deliveryLog(endpointId)).items;

      const detail = await deliveries.attemptDetail(item.id);
      expect(detail).toEqual({
        ...item,
        response_excerpt: '{"queued":true}',
        response_headers: expect.objectContaining({
          'x-request-id': 'req_8f2c',
          'content-type': 'application/json',
          date: expect.any(String),
        }),
        request: {
          method: 'POST',
          transformation_version: null,
          url: r.url,
          headers: expect.any(Object),
          body: w.body,
        },
        delivery: { status: 'succeeded', attempt_count: 1, next_attempt_at: null },
      });
      expect(detail).toMatchObject({
        status_code: 202,
        success: true,
        event_type: 'leads.bulk_created',
      });
      expectHeadersAsSent(detail.request.headers, w);
      expect(detail.request.headers!['webhook-signature']).toMatch(
        /^v1,[A-Za-z0-9+/]{12}… v1,[A-Za-z0-9+/]{12}…$/,
      );
      // The body is the event's, stored once: not copied onto the attempt.
      const [stored] = await t.db.query(
        `SELECT a.request_body, a.request_url, e.body FROM webhook_delivery_attempt a
           JOIN webhook_delivery d ON d.id = a.delivery_id JOIN webhook_event e ON e.id = d.event_id
          WHERE a.id = $1`,
        [item.id],
      );
      expect(stored).toEqual({ request_body: null, request_url: r.url, body: w.body });
      await expectNoSecretStored(item.id, w, [secret, oldSecret]);

      // The URL is the one sent to, even after the endpoint moves.
      const moved = await receiver();
      await t.app.get(WebhookEndpointAdmin).update(endpointId, { url: moved.url });
      expect((await deliveries.attemptDetail(item.id)).request.url).toBe(r.url);
    });

    it('keeps the response headers bounded, in the order received, credentials redacted', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      const many: Record<string, string> = {};
      for (let i = 0; i < 80; i += 1) many[`x-filler-${String(i).padStart(2, '0')}`] = 'f';
      r.behaviour = {
        status: 500,
        body: 'broken',
        headers: {
          'x-first': 'one',
          'set-cookie': 'session=receiver-session-secret; HttpOnly',
          'x-long': 'L'.repeat(5000),
          ...many,
        },
      };
      const { id: endpointId } = await t.given.endpoint(me.campaignId, r.url, ['lead.created']);
      await upload(me, [{ phone: '+14155550100' }]);
      await eventually(async () =>
        expect((await deliveries.deliveryLog(endpointId)).items).toHaveLength(1),
      );
      const [item] = (await deliveries.deliveryLog(endpointId)).items;

      const shown = (await deliveries.attemptDetail(item.id)).response_headers!;
      const names = Object.keys(shown);
      expect(names.slice(0, 4)).toEqual(['x-first', 'set-cookie', 'x-long', 'x-filler-00']);
      expect(shown['set-cookie']).toBe('[redacted]');
      expect(shown['x-long']).toBe(`${'L'.repeat(256)}…`);
      expect(names.length).toBeLessThanOrEqual(50);
      expect(names).not.toContain('x-filler-79');
      const [stored] = await t.db.query(
        'SELECT response_headers::text AS text FROM webhook_delivery_attempt WHERE id = $1',
        [item.id],
      );
      expect(JSON.parse(stored.text)).toEqual(shown);
      expect(stored.text).not.toContain('receiver-session-secret');
      expect(stored.text.length).toBeLessThan(5000);
    });

    it('shows when a failed attempt’s delivery is retried next, as the delivery row holds it', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      r.behaviour = { status: 503, body: 'busy' };
      const { id: endpointId } = await t.given.endpoint(me.campaignId, r.url, ['lead.created']);
      await upload(me, [{ phone: '+14155550100' }]);
      await eventually(async () =>
        expect((await deliveries.deliveryLog(endpointId)).items).toHaveLength(1),
      );
      const [item] = (await deliveries.deliveryLog(endpointId)).items;
      const [row] = await t.db.query(
        'SELECT status, attempt_count, next_attempt_at FROM webhook_delivery WHERE id = $1',
        [item.delivery_id],
      );
      expect(row.status).toBe('pending');
      // The retry schedule of this suite is one hour.
      expect(row.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);

      const detail = await deliveries.attemptDetail(item.id);
      expect(detail).toMatchObject({ success: false, status_code: 503, error: 'HTTP 503' });
      expect(detail.delivery).toEqual({
        status: 'pending',
        attempt_count: 1,
        next_attempt_at: row.next_attempt_at,
      });
    });

    it('shows a ping and a failed test event with their own bodies', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      const { id: endpointId, secret } = await t.given.endpoint(me.campaignId, r.url, [
        'lead.created',
      ]);
      const ping = await deliveries.ping(endpointId);
      r.behaviour = { status: 418, body: 'x'.repeat(2000) };
      const test = await deliveries.sendTest(endpointId, 'form.submitted');
      const [pingReceived, testReceived] = r.received;

      const pingDetail = await deliveries.attemptDetail(ping.id);
      expect(pingDetail.response_headers).toMatchObject({ date: expect.any(String) });
      // A ping belongs to no delivery: nothing to retry.
      expect(pingDetail.delivery).toBeNull();
      expect(pingDetail.request).toEqual({
        method: 'POST',
        transformation_version: null,
        url: r.url,
        headers: expect.any(Object),
        body: pingReceived.body,
      });
      expectHeadersAsSent(pingDetail.request.headers, pingReceived);
      expect(JSON.parse(pingDetail.request.body!)).toMatchObject({
        type: 'ping',
        data: { endpoint_id: endpointId },
      });
      await expectNoSecretStored(ping.id, pingReceived, [secret]);

      const testDetail = await deliveries.attemptDetail(test.id);
      expect(testDetail).toMatchObject({
        success: false,
        status_code: 418,
        error: 'HTTP 418',
        event_type: 'form.submitted',
        response_excerpt: 'x'.repeat(1024),
        request: { url: r.url, body: testReceived.body },
      });
      expectHeadersAsSent(testDetail.request.headers, testReceived);
    });

    it('does not know attempts that do not exist or are still in flight', async () => {
      const me = await t.given.caller();
      const { id: endpointId } = await t.given.endpoint(me.campaignId, 'https://example.com/h', [
        'lead.created',
      ]);
      const [inFlight] = await t.db.query(
        `INSERT INTO webhook_delivery_attempt (endpoint_id, message_id, attempted_at, duration_ms, success)
         VALUES ($1, 'ping_in_flight_detail', now(), 0, false) RETURNING id`,
        [endpointId],
      );
      try {
        for (const id of [Number(inFlight.id), 999_999_999, 0, -1, 2 ** 60]) {
          await expect(deliveries.attemptDetail(id)).rejects.toThrow(NotFoundError);
        }
      } finally {
        await t.db.query('DELETE FROM webhook_delivery_attempt WHERE id = $1', [inFlight.id]);
      }
    });
  });

  describe('test events', () => {
    const healthOf = async (endpointId: number) =>
      (
        await t.db.query(
          'SELECT total_deliveries, successful_deliveries, failed_deliveries FROM webhook_endpoint WHERE id = $1',
          [endpointId],
        )
      )[0];

    it('sends an example of the chosen type, signed, as test_<uuid>, counted in health like a ping', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      r.behaviour = { status: 200, body: 'thanks' };
      // Neither subscribed to the type nor enabled: a test is sent anyway.
      const { id: endpointId, secret } = await t.given.endpoint(
        me.campaignId,
        r.url,
        ['leads.bulk_created'],
        { enabled: false },
      );
      const before = Date.now();
      const attempt = await deliveries.sendTest(endpointId, 'lead.created');

      expect(r.received).toHaveLength(1);
      const [w] = r.received;
      const body = verifyWebhook(secret, w);
      expect(body).toEqual({
        type: 'lead.created',
        timestamp: expect.stringMatching(/Z$/),
        data: EVENT_EXAMPLES['lead.created'],
      });
      expect(Object.keys(JSON.parse(w.body))).toEqual(['type', 'timestamp', 'data']);
      expect(new Date(body.timestamp).getTime()).toBeGreaterThanOrEqual(before - 5);
      expect(w.headers['webhook-id']).toMatch(/^test_[0-9a-f]{8}-[0-9a-f-]{27}$/);
      expect(attempt).toEqual({
        id: expect.any(Number),
        delivery_id: null,
        endpoint_id: endpointId,
        webhook_id: w.headers['webhook-id'],
        event_type: 'lead.created',
        attempted_at: expect.any(Date),
        duration_ms: expect.any(Number),
        status_code: 200,
        success: true,
        error: null,
        response_excerpt: 'thanks',
      });
      expect(attempt.duration_ms).toBeGreaterThan(0);
      expect(await healthOf(endpointId)).toEqual({
        total_deliveries: 1,
        successful_deliveries: 1,
        failed_deliveries: 0,
      });
      // No event, no delivery: nothing is retried or redelivered.
      const events = await t.db.query(
        'SELECT count(*)::int AS n FROM webhook_event WHERE campaign_id = $1',
        [me.campaignId],
      );
      expect(events[0].n).toBe(0);
      const [row] = await t.db.query(
        'SELECT delivery_id, event_type, message_id, request_body FROM webhook_delivery_attempt WHERE id = $1',
        [attempt.id],
      );
      expect(row).toEqual({
        delivery_id: null,
        event_type: 'lead.created',
        message_id: w.headers['webhook-id'],
        request_body: w.body,
      });

      r.behaviour = { status: 500 };
      expect(await deliveries.sendTest(endpointId, 'call.started')).toMatchObject({
        success: false,
        status_code: 500,
        event_type: 'call.started',
      });
      expect(verifyWebhook(secret, r.received[1]).data).toEqual(EVENT_EXAMPLES['call.started']);
      expect(await healthOf(endpointId)).toEqual({
        total_deliveries: 2,
        successful_deliveries: 1,
        failed_deliveries: 1,
      });
    });

    it('sends a ping when no type, or ping, is chosen', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      const { id: endpointId, secret } = await t.given.endpoint(me.campaignId, r.url, [
        'lead.created',
      ]);
      for (const type of [undefined, 'ping']) {
        const attempt = await deliveries.sendTest(endpointId, type);
        expect(attempt).toMatchObject({
          delivery_id: null,
          event_type: null,
          webhook_id: expect.stringMatching(/^ping_/),
          success: true,
          status_code: 204,
        });
      }
      expect(r.received.map((w) => verifyWebhook(secret, w))).toEqual([
        { type: 'ping', timestamp: expect.any(String), data: { endpoint_id: endpointId } },
        { type: 'ping', timestamp: expect.any(String), data: { endpoint_id: endpointId } },
      ]);
      expect((await healthOf(endpointId)).total_deliveries).toBe(2);
    });

    it('refuses an unknown type and an unknown endpoint, sending nothing', async () => {
      const me = await t.given.caller();
      const r = await receiver();
      const { id: endpointId } = await t.given.endpoint(me.campaignId, r.url, ['lead.created']);
      await expect(deliveries.sendTest(endpointId, 'lead.deleted')).rejects.toMatchObject({
        code: 'invalid_input',
        field: 'event_type',
      });
      await expect(deliveries.sendTest(2_147_480_000, 'lead.created')).rejects.toThrow(
        NotFoundError,
      );
      expect(r.received).toHaveLength(0);
      expect(await healthOf(endpointId)).toEqual({
        total_deliveries: 0,
        successful_deliveries: 0,
        failed_deliveries: 0,
      });
    });
  });

  describe('migration DeliveryLog1795500000001', () => {
    const url = TEST_DATABASE_URL.replace(/\/([^/]+)$/, '/$1_migration');
    afterAll(() => dropDatabase(url));

    it('backfills the event type of existing attempts, and reverts', async () => {
      await dropDatabase(url);
      const name = new URL(url).pathname.slice(1);
      await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}"`));
      const index = MIGRATIONS.indexOf(DeliveryLog1795500000001);
      expect(index).toBeGreaterThan(0);
      const before = new DataSource({
        ...buildDataSourceOptions(url, 1),
        migrations: MIGRATIONS.slice(0, index),
      });
      await before.initialize();
      try {
        await before.runMigrations({ transaction: 'each' });
        await before.query(`INSERT INTO account (id, name) VALUES (1, 'a')`);
        await before.query(`INSERT INTO campaign (id, account_id, name) VALUES (1, 1, 'c')`);
        await before.query(
          `INSERT INTO webhook_endpoint (id, campaign_id, url, subscribed_events, secret_encrypted)
           VALUES (1, 1, 'https://example.com/h', '{lead.created}', 'x')`,
        );
        await before.query(
          `INSERT INTO webhook_event (id, campaign_id, type, body, created_at)
           VALUES ('00000000-0000-4000-8000-000000000001', 1, 'lead.created', '{}', now()),
                  ('00000000-0000-4000-8000-000000000002', 1, 'call.completed', '{}', now())`,
        );
        await before.query(
          `INSERT INTO webhook_delivery (id, event_id, endpoint_id, status)
           VALUES (1, '00000000-0000-4000-8000-000000000001', 1, 'succeeded'),
                  (2, '00000000-0000-4000-8000-000000000002', 1, 'failed')`,
        );
        await before.query(
          `INSERT INTO webhook_delivery_attempt (id, endpoint_id, delivery_id, message_id, attempted_at, finished_at, duration_ms, success)
           VALUES (1, 1, 1, '00000000-0000-4000-8000-000000000001', now(), now(), 5, true),
                  (2, 1, 2, '00000000-0000-4000-8000-000000000002', now(), now(), 5, false),
                  (3, 1, 2, '00000000-0000-4000-8000-000000000002', now(), now(), 5, false),
                  (4, 1, NULL, 'ping_x', now(), now(), 5, true)`,
        );
      } finally {
        await before.destroy();
      }

      const after = new DataSource(buildDataSourceOptions(url, 1));
      await after.initialize();
      try {
        await after.runMigrations({ transaction: 'each' });
        expect(
          await after.query(
            'SELECT id::int, event_type, request_url, request_headers, request_body FROM webhook_delivery_attempt ORDER BY id',
          ),
        ).toEqual([
          {
            id: 1,
            event_type: 'lead.created',
            request_url: null,
            request_headers: null,
            request_body: null,
          },
          {
            id: 2,
            event_type: 'call.completed',
            request_url: null,
            request_headers: null,
            request_body: null,
          },
          {
            id: 3,
            event_type: 'call.completed',
            request_url: null,
            request_headers: null,
            request_body: null,
          },
          {
            id: 4,
            event_type: 'ping',
            request_url: null,
            request_headers: null,
            request_body: null,
          },
        ]);
        const indexes = await after.query(
          `SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_delivery_attempt' ORDER BY indexname`,
        );
        // The attempts' table as it is after every migration (partitioned since
        // DeliveryRetention1795900000000, under a primary key that names the partition key too).
        expect(indexes.map((row: { indexname: string }) => row.indexname)).toEqual([
          'PK_webhook_delivery_attempt',
          'idx_webhook_delivery_attempt_log',
          'idx_webhook_delivery_attempt_log_event_type',
          'idx_webhook_delivery_attempt_unfinished',
          'uq_webhook_delivery_attempt_number',
        ]);
        // Reverting this migration (the last one applied only if nothing came after it).
        const last = await after.query(
          'SELECT name FROM typeorm_migrations ORDER BY id DESC LIMIT 1',
        );
        if (last[0].name === 'DeliveryLog1795500000001') {
          await after.undoLastMigration({ transaction: 'each' });
          const columns = await after.query(
            `SELECT column_name FROM information_schema.columns
              WHERE table_name = 'webhook_delivery_attempt' AND column_name IN ('event_type', 'request_url', 'request_headers', 'request_body')`,
          );
          expect(columns).toEqual([]);
          const restored = await after.query(
            `SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_delivery_attempt' AND indexname LIKE 'idx_webhook_delivery_attempt_%' ORDER BY indexname`,
          );
          expect(restored.map((row: { indexname: string }) => row.indexname)).toEqual([
            'idx_webhook_delivery_attempt_delivery_id',
            'idx_webhook_delivery_attempt_endpoint_id_id',
            'idx_webhook_delivery_attempt_unfinished',
          ]);
        }
      } finally {
        await after.destroy();
      }
    });
  });
});
