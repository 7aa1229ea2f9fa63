/**
 * The dashboard's lead search and a lead's page (docs/dashboard.md#leads): search by phone in
 * the formats of the campaign's region, by email or name prefix whatever the case, keyset pages;
 * one lead with its import's compliance record; the webhook deliveries about the lead, newest
 * first, with the attempts a real local receiver answered. Another account's campaign or lead
 * is 404; bad parameters are 400/422 in the error envelope.
 */
import { LeadSearch1795927000000 } from '../src/database/migrations/1795927000000-LeadSearch';
import { WebhookEventPublisher } from '../src/delivery/outbox/webhook-event.publisher';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const LEAD_KEYS = [
  'campaign_id',
  'company',
  'created_at',
  'email',
  'first_name',
  'id',
  'import_id',
  'last_name',
  'phone',
  'source',
  'tags',
  'title',
];

describe('Lead search and a lead’s timeline (docs/dashboard.md#leads)', () => {
  let t: TestApp;
  let me: Caller;
  // An admin: these tests read full phones and emails; a viewer's are masked
  // (docs/privacy.md#contact-details-by-role, test/erasure.e2e-spec.ts).
  let reader: SignedIn;
  let ok: WebhookReceiver;
  let failing: WebhookReceiver;
  let okEndpoint: number;
  let failingEndpoint: number;
  const ids: Record<string, number> = {};

  const get = (path: string, session: SignedIn = reader) =>
    t.http().get(`/dashboard/api${path}`).set('Cookie', session.cookie);
  const search = (query: string, campaignId = me.campaignId) =>
    get(`/campaigns/${campaignId}/leads?${query}`);
  const found = async (query: string) => {
    const res = await search(query).expect(200);
    return (res.body.items as Array<{ id: number }>).map((item) => item.id);
  };

  const upload = (caller: Caller, leads: unknown[], extra: Record<string, unknown> = {}) =>
    t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, leads, extra))
      .expect(202);

  beforeAll(async () => {
    // No retries within a test: a failed scheduled attempt stays one attempt.
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h' });
    me = await t.given.caller('US');
    ok = await new WebhookReceiver().start();
    failing = await new WebhookReceiver().start();
    failing.behaviour = { status: 500, body: 'down for maintenance' };
    const events = ['lead.created', 'leads.bulk_created', 'lead.status_changed'];
    ({ id: okEndpoint } = await t.given.endpoint(me.campaignId, ok.url, events));
    ({ id: failingEndpoint } = await t.given.endpoint(me.campaignId, failing.url, events));
    await upload(
      me,
      [
        {
          phone: '+14155550100',
          first_name: 'Ada',
          last_name: 'Lovelace',
          email: 'Ada@Example.com',
        },
        {
          phone: '(415) 555-0101',
          first_name: 'Alan',
          last_name: 'Turing',
          email: 'alan@example.org',
        },
        {
          phone: '415 555 0102',
          first_name: 'ada',
          last_name: 'Byron',
          email: 'byron@example.com',
        },
        { phone: '415-555-0103', first_name: 'Grace', last_name: 'Hopper', email: null },
        {
          phone: '415.555.0104',
          first_name: 'Percy',
          last_name: 'Adams',
          email: 'p_adams@example.com',
        },
      ],
      { source: 'open-house', tags: ['spring'], disclaimer_version: 'v7' },
    );
    const rows: Array<{ id: number; phone: string }> = await t.db.query(
      'SELECT id::int AS id, phone FROM lead WHERE campaign_id = $1',
      [me.campaignId],
    );
    for (const row of rows) ids[row.phone] = row.id;
    reader = await signIn(t, await givenUser(t, 'admin', me.accountId));
  });
  afterAll(async () => {
    await t.close();
    await ok.stop();
    await failing.stop();
  });

  describe('search', () => {
    it('finds a lead by its phone in any format of the campaign’s region, normalised to E.164', async () => {
      for (const q of [
        '(415) 555-0100',
        '+1 415 555 0100',
        '415.555.0100',
        '4155550100',
        '1-415-555-0100',
      ]) {
        const res = await search(`q=${encodeURIComponent(q)}`).expect(200);
        expect({ q, body: res.body }).toEqual({
          q,
          body: {
            field: 'phone',
            value: '+14155550100',
            items: [expect.objectContaining({ id: ids['+14155550100'], phone: '+14155550100' })],
            next_cursor: null,
          },
        });
      }
      expect(await found('q=%2B14155550199')).toEqual([]);
    });

    it('reads phones in the campaign’s own region (GB: 020 …), and refuses one that is not a whole number', async () => {
      const gb = await t.given.caller('GB');
      await upload(gb, [{ phone: '020 7946 0018', first_name: 'Kate' }]);
      const session = await signIn(t, await givenUser(t, 'viewer', gb.accountId));
      for (const q of ['020 7946 0018', '+44 20 7946 0018', '(020) 7946-0018']) {
        const res = await get(
          `/campaigns/${gb.campaignId}/leads?q=${encodeURIComponent(q)}`,
          session,
        ).expect(200);
        expect(res.body).toMatchObject({ field: 'phone', value: '+442079460018' });
        expect(res.body.items.map((l: { first_name: string }) => l.first_name)).toEqual(['Kate']);
      }
      const refused = await search('q=415555').expect(422);
      expect(refused.body).toEqual({
        error: 'validation_failed',
        message: expect.stringContaining(
          "q is not a valid phone number in the campaign's region (US)",
        ),
      });
    });

    it('finds leads by email prefix whatever the case, in email order, with exactly the documented fields', async () => {
      const res = await search('q=ADA%40ex').expect(200);
      expect(res.body).toEqual({
        field: 'email',
        value: 'ADA@ex',
        items: [expect.any(Object)],
        next_cursor: null,
      });
      const [ada] = res.body.items;
      expect(Object.keys(ada).sort()).toEqual(LEAD_KEYS);
      const [row] = await t.db.query(`SELECT l.*, l.id::int AS id FROM lead l WHERE l.id = $1`, [
        ids['+14155550100'],
      ]);
      expect(ada).toEqual({
        id: row.id,
        campaign_id: me.campaignId,
        phone: '+14155550100',
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'Ada@Example.com',
        company: null,
        title: null,
        tags: ['spring'],
        source: 'open-house',
        import_id: row.import_id,
        created_at: row.created_at.toISOString(),
      });
      // Without an @ the text is a name; field=email says otherwise. Ordered by lower(email).
      expect(await found('q=a&field=email')).toEqual([ids['+14155550100'], ids['+14155550101']]);
      // LIKE's wildcards are plain characters: `_` matches only an underscore.
      expect(await found('q=p_&field=email')).toEqual([ids['+14155550104']]);
      expect(await found('q=%25&field=email')).toEqual([]);
    });

    it('finds leads by first or last name prefix, or "first last", whatever the case', async () => {
      // "ada" is Ada Lovelace's and ada Byron's first name, and the start of Percy Adams' last.
      const ada = await search('q=ADA').expect(200);
      expect(ada.body.field).toBe('name');
      expect(ada.body.items.map((l: { id: number }) => l.id)).toEqual([
        ids['+14155550102'], // "ada byron"
        ids['+14155550100'], // "ada lovelace"
        ids['+14155550104'], // "adams percy"
      ]);
      expect(await found('q=lovelace')).toEqual([ids['+14155550100']]);
      expect(await found(`q=${encodeURIComponent('  Ada   Love ')}`)).toEqual([
        ids['+14155550100'],
      ]);
      expect(await found(`q=${encodeURIComponent('turing alan')}`)).toEqual([ids['+14155550101']]);
      expect(await found('q=zzz')).toEqual([]);
    });

    it('pages by keyset: every match once, in order, next_cursor null on the last page', async () => {
      const all = await found('q=a&field=name');
      expect(all).toHaveLength(4); // ada byron, ada lovelace, adams percy, alan turing
      const paged: number[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 10; pages++) {
        const res: { body: { items: Array<{ id: number }>; next_cursor: string | null } } =
          await search(`q=a&field=name&limit=1${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
        paged.push(...res.body.items.map((l) => l.id));
        cursor = res.body.next_cursor;
        if (cursor === null) break;
        expect(res.body.items).toHaveLength(1);
      }
      expect(paged).toEqual(all);
      // A cursor belongs to its search's field.
      const first = await search('q=a&field=name&limit=1').expect(200);
      const wrong = await search(`q=a&field=email&cursor=${first.body.next_cursor}`).expect(422);
      expect(wrong.body.message).toContain('cursor is not a cursor of this search');
    });

    it('answers bad parameters with 400 or 422 in the error envelope, never 500', async () => {
      const cases: Array<[string, number, string]> = [
        ['', 422, 'q must be given'],
        ['q=', 422, 'q must be given'],
        ['q=%20%20', 422, 'q must be given'],
        [`q=${'a'.repeat(321)}`, 422, 'q must be at most 320 characters'],
        ['q=ada&field=company', 422, 'field must be phone, email, name'],
        ['q=ada&limit=0', 422, 'limit must be an integer from 1 to 100'],
        ['q=ada&limit=101', 422, 'limit must be an integer from 1 to 100'],
        ['q=ada&limit=ten', 422, 'limit must be an integer from 1 to 100'],
        ['q=ada&cursor=%25%25', 422, 'cursor is not a cursor of this search'],
        ['q=ada&cursor=djE6bmFtZTowMTp4', 422, 'cursor is not a cursor of this search'],
        ['q=ada&q=bob', 422, 'q'],
        ['q=ada&sort=name', 422, 'sort'],
        ['q=a%00b', 422, 'q must not contain a NUL character'],
      ];
      for (const [query, status, message] of cases) {
        const res = await search(query);
        expect({ query, status: res.status, body: res.body }).toEqual({
          query,
          status,
          body: { error: 'validation_failed', message: expect.stringContaining(message) },
        });
      }
      const malformed = await get('/campaigns/abc/leads?q=ada').expect(400);
      expect(malformed.body).toEqual({
        error: 'bad_request',
        message: 'campaign_id must be a positive integer',
      });
    });

    it('answers another account’s campaign 404, as one that does not exist, whatever the query', async () => {
      const other = await t.given.caller('US');
      await upload(other, [{ phone: '+14155550100', first_name: 'Ada' }]);
      for (const campaignId of [other.campaignId, 99_999_999]) {
        for (const query of ['q=ada', 'q=', 'limit=0']) {
          const res = await search(query, campaignId).expect(404);
          expect(res.body).toEqual({
            error: 'not_found',
            message: `campaign ${campaignId} does not exist`,
          });
        }
      }
      // The same phone in another campaign is never found here.
      expect(await found('q=4155550100')).toEqual([ids['+14155550100']]);
    });
  });

  describe('a lead’s page', () => {
    it('shows the lead with its campaign and the compliance record of its import', async () => {
      const id = ids['+14155550101'];
      const res = await get(`/leads/${id}`).expect(200);
      const [row] = await t.db.query(
        `SELECT i.*, l.created_at AS lead_created_at FROM lead l JOIN lead_import i ON i.id = l.import_id WHERE l.id = $1`,
        [id],
      );
      const [campaign] = await t.db.query('SELECT name FROM campaign WHERE id = $1', [
        me.campaignId,
      ]);
      const [key] = await t.db.query('SELECT key_prefix FROM api_key WHERE id = $1', [me.apiKeyId]);
      expect(res.body).toEqual({
        id,
        campaign_id: me.campaignId,
        campaign_name: campaign.name,
        phone: '+14155550101',
        first_name: 'Alan',
        last_name: 'Turing',
        email: 'alan@example.org',
        company: null,
        title: null,
        tags: ['spring'],
        source: 'open-house',
        import_id: row.id,
        created_at: row.lead_created_at.toISOString(),
        import: {
          id: row.id,
          created_at: row.created_at.toISOString(),
          campaign_id: me.campaignId,
          api_key: { id: me.apiKeyId, name: 'test key', prefix: key.key_prefix },
          user: null,
          spreadsheet_import_id: null,
          source: 'open-house',
          tags: ['spring'],
          disclaimer_version: 'v7',
          compliance_acknowledged_at: row.compliance_acknowledged_at.toISOString(),
          client_ip: row.client_ip,
          received_count: 5,
          valid_count: 5,
          invalid_count: 0,
          duplicate_count: 0,
          new_count: 5,
          rejected_rows_kept: 0,
        },
      });
    });

    it('answers another account’s lead 404, as one that does not exist; a malformed id 400', async () => {
      const other = await t.given.caller('US');
      await upload(other, [{ phone: '+14155550177' }]);
      const [{ id: theirs }] = await t.db.query(
        'SELECT id::int AS id FROM lead WHERE campaign_id = $1',
        [other.campaignId],
      );
      for (const id of [theirs, 9_999_999_999]) {
        for (const path of [`/leads/${id}`, `/leads/${id}/deliveries`]) {
          const res = await get(path).expect(404);
          expect(res.body).toEqual({ error: 'not_found', message: `lead ${id} does not exist` });
        }
      }
      for (const path of ['/leads/abc', '/leads/0/deliveries', '/leads/01']) {
        const res = await get(path).expect(400);
        expect(res.body).toEqual({
          error: 'bad_request',
          message: 'lead_id must be a positive integer',
        });
      }
    });
  });

  describe('a lead’s timeline', () => {
    const ADA = '+14155550100';
    /** Waits until `count` deliveries of the campaign have had their one attempt. */
    const attempted = (count: number) =>
      eventually(async () => {
        const [{ n }] = await t.db.query(
          `SELECT count(*)::int AS n FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
            WHERE e.campaign_id = $1 AND d.attempt_count = 1`,
          [me.campaignId],
        );
        expect(n).toBe(count);
      });

    beforeAll(async () => {
      // The upload's lead.created deliveries: 5 leads + 1 bulk event, to both endpoints.
      await attempted(12);
      // A later event naming the lead, as another part of the platform records it.
      await t.app.get(WebhookEventPublisher).publish(me.campaignId, [
        {
          type: 'lead.status_changed',
          data: {
            lead_id: ids[ADA],
            campaign_id: me.campaignId,
            previous_status: 'new',
            status: 'contacted',
            changed_at: new Date().toISOString(),
          },
        },
      ]);
      await attempted(14);
    });

    it('stores the lead each event is about: lead.created’s id and a later event’s lead_id, none for the bulk event', async () => {
      const rows: Array<{ type: string; lead_id: string | null; named: string | null }> =
        await t.db.query(
          `SELECT type, lead_id::text, COALESCE(body::jsonb->'data'->>'id', body::jsonb->'data'->>'lead_id') AS named
             FROM webhook_event WHERE campaign_id = $1 ORDER BY type`,
          [me.campaignId],
        );
      expect(rows).toHaveLength(7);
      for (const row of rows) {
        expect({ type: row.type, lead_id: row.lead_id }).toEqual({
          type: row.type,
          lead_id: row.type === 'leads.bulk_created' ? null : row.named,
        });
      }
    });

    it('lists every delivery about the lead, newest first, with each attempt’s outcome from the receiver', async () => {
      const res = await get(`/leads/${ids[ADA]}/deliveries`).expect(200);
      expect(res.body.next_cursor).toBeNull();
      expect(res.body.retention_days).toBe(t.config.deliveryRetentionDays);
      const items = res.body.items as Array<Record<string, unknown>>;
      expect(items.map((d) => [d.event_type, (d.endpoint as { id: number }).id])).toEqual([
        ['lead.status_changed', failingEndpoint],
        ['lead.status_changed', okEndpoint],
        ['lead.created', failingEndpoint],
        ['lead.created', okEndpoint],
      ]);
      const rows = await t.db.query(
        `SELECT d.id::int AS id, d.created_at, d.endpoint_id, d.status, e.id AS event_id, e.type,
                a.id::int AS attempt_id, a.attempted_at, a.status_code, a.duration_ms, a.success
           FROM webhook_event e JOIN webhook_delivery d ON d.event_id = e.id
           JOIN webhook_delivery_attempt a ON a.delivery_id = d.id
          WHERE e.lead_id = $1 ORDER BY d.created_at DESC, d.id DESC`,
        [ids[ADA]],
      );
      expect(
        rows.map((row: { success: boolean; status_code: number }) => [
          row.success,
          row.status_code,
        ]),
      ).toEqual([
        [false, 500],
        [true, 204],
        [false, 500],
        [true, 204],
      ]);
      expect(items).toEqual(
        rows.map((row: Record<string, unknown>) => {
          const succeeded = row.success === true;
          return {
            id: row.id,
            webhook_id: row.event_id,
            event_type: row.type,
            endpoint: {
              id: row.endpoint_id,
              url: succeeded ? ok.url : failing.url,
              description: null,
            },
            status: row.status,
            attempt_count: 1,
            held_by: null,
            created_at: (row.created_at as Date).toISOString(),
            attempts: [
              {
                id: row.attempt_id,
                attempted_at: (row.attempted_at as Date).toISOString(),
                outcome: succeeded ? 'succeeded' : 'failed',
                status_code: row.status_code,
                duration_ms: row.duration_ms,
                error: succeeded ? null : 'HTTP 500',
              },
            ],
          };
        }),
      );
      // What the receiver got for the lead: its lead.created and the later event.
      const about = ok.received
        .map((w) => JSON.parse(w.body) as { type: string; data: Record<string, unknown> })
        .filter((b) => b.data.id === ids[ADA] || b.data.lead_id === ids[ADA])
        .map((b) => b.type);
      expect(about.sort()).toEqual(['lead.created', 'lead.status_changed']);
    });

    it('shows a redelivery as one more attempt, newest first; pages by keyset', async () => {
      const first = await get(`/leads/${ids[ADA]}/deliveries?limit=1`).expect(200);
      expect(first.body.items).toHaveLength(1);
      const rest = await get(
        `/leads/${ids[ADA]}/deliveries?limit=3&cursor=${first.body.next_cursor}`,
      ).expect(200);
      expect(rest.body.next_cursor).toBeNull();
      const all = await get(`/leads/${ids[ADA]}/deliveries`).expect(200);
      expect([...first.body.items, ...rest.body.items]).toEqual(all.body.items);

      failing.behaviour = { status: 202 };
      const failed = all.body.items[0];
      const admin = await signIn(t, await givenUser(t, 'admin', me.accountId));
      await t
        .http()
        .post(`/dashboard/api/deliveries/${failed.id}/redeliver`)
        .set('Cookie', admin.cookie)
        .set('X-CSRF-Token', admin.csrf)
        .send({})
        .expect(200);
      const after = await get(`/leads/${ids[ADA]}/deliveries?limit=1`).expect(200);
      expect(
        after.body.items[0].attempts.map((a: { outcome: string; status_code: number }) => [
          a.outcome,
          a.status_code,
        ]),
      ).toEqual([
        ['succeeded', 202],
        ['failed', 500],
      ]);
    });

    it('lists nothing for a lead no event names; refuses bad paging parameters', async () => {
      const [other] = await t.db.query(
        `INSERT INTO lead (campaign_id, import_id, source, phone)
         SELECT campaign_id, import_id, 'by hand', '+14155550188' FROM lead WHERE id = $1
         RETURNING id::int AS id`,
        [ids[ADA]],
      );
      const res = await get(`/leads/${other.id}/deliveries`).expect(200);
      expect(res.body).toEqual({
        items: [],
        next_cursor: null,
        retention_days: t.config.deliveryRetentionDays,
      });
      for (const query of ['limit=0', 'limit=101', 'cursor=nope', 'page=2']) {
        const refused = await get(`/leads/${ids[ADA]}/deliveries?${query}`).expect(422);
        expect(refused.body.error).toBe('validation_failed');
      }
    });

    it('the migration gives events recorded before it their lead, from their bodies', async () => {
      const runner = t.db.createQueryRunner();
      await runner.startTransaction();
      try {
        const migration = new LeadSearch1795927000000();
        await migration.down(runner);
        await migration.up(runner);
        const [{ n }] = await runner.query(
          `SELECT count(*)::int AS n FROM webhook_event WHERE lead_id = $1`,
          [ids[ADA]],
        );
        expect(n).toBe(2);
        const [{ bulk }] = await runner.query(
          `SELECT count(*)::int AS bulk FROM webhook_event
            WHERE type = 'leads.bulk_created' AND lead_id IS NOT NULL`,
        );
        expect(bulk).toBe(0);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });
  });
});
