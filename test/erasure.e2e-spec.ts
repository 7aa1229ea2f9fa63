/**
 * Erasure and the suppression list (docs/privacy.md): one person uploaded through every path
 * (the API upload, a CSV spreadsheet import with one of their rows rejected, another CSV import,
 * and an upload left waiting for its mapping), delivered to a receiver answering 500 so that the
 * delivery waits on a retry, then erased through the public API. Afterwards no text, jsonb or
 * bytea column of any table and no Redis key of the deployment's namespace holds their phone (in
 * any format uploaded) or their email; the waiting delivery never reaches the receiver once it
 * recovers; an upload of them is refused as suppressed; the receipt's counts are exact.
 */
import { createRedisClient } from '../src/redis/redis-connection';
import { SUPPRESSED_MESSAGE } from '../src/leads/upload/lead-batch';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { eventually, sleep } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const API = '/dashboard/api';

/** Alice, written the ways the uploads below write her; Bob is kept throughout. */
const ALICE = {
  e164: '+14155550199',
  formats: ['+1 (415) 555-0199', '415.555.0199', '(415) 555-0199', '4155550199'],
  email: 'Alice.Erased@Example.com',
};
const BOB = { phone: '+1 415 555 0142', email: 'bob.kept@example.com' };
const MAPPING = { phone: 0, email: 1, first_name: 2 };

describe('Erasure by phone and email, and the suppression list (docs/privacy.md)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({
      RATE_LIMIT_SIGN_IN_PER_IP: '1000000',
      WEBHOOK_RETRY_SCHEDULE: '1s,15s,2s,2s,2s,2s,2s,2s',
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  async function spreadsheet(
    session: SignedIn,
    campaignId: number,
    csv: string,
    start: boolean,
  ): Promise<string> {
    const uploaded = await t
      .http()
      .post(`${API}/campaigns/${campaignId}/spreadsheet-imports?file_name=people.csv`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from(csv))
      .expect(201);
    const id = uploaded.body.id as string;
    if (!start) return id;
    await t
      .http()
      .post(`${API}/spreadsheet-imports/${id}/start`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ mapping: MAPPING, compliance_acknowledged: true, skip_duplicates: false })
      .expect(202);
    await eventually(async () => {
      const [row] = await t.db.query('SELECT status FROM spreadsheet_import WHERE id = $1', [id]);
      expect(row.status).toBe('done');
    });
    return id;
  }

  const erase = (caller: Caller, body: Record<string, unknown>) =>
    t
      .http()
      .post('/api/v1/erasure-requests')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(body);

  /** Every place the person may hide: `table.column` or `redis key` → the needle found. */
  async function findPerson(namespace: string): Promise<string[]> {
    const needles = [...ALICE.formats, ALICE.e164, ALICE.email.toLowerCase()];
    const found: string[] = [];
    const columns: Array<{ table_name: string; column_name: string; data_type: string }> =
      await t.db.query(
        `SELECT c.table_name, c.column_name, c.data_type
           FROM information_schema.columns c
           JOIN information_schema.tables tb
             ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
          WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
            AND c.data_type IN ('text', 'character varying', 'character', 'jsonb', 'json', 'bytea', 'ARRAY')`,
      );
    for (const { table_name, column_name, data_type } of columns) {
      const column = `"${column_name}"`;
      const asText = data_type === 'bytea' ? `encode(${column}, 'escape')` : `${column}::text`;
      for (const needle of needles) {
        const [row] = await t.db.query(
          `SELECT count(*)::int AS n FROM "${table_name}" WHERE strpos(lower(${asText}), lower($1)) > 0`,
          [needle],
        );
        if (row.n > 0) found.push(`${table_name}.${column_name} holds ${needle}`);
      }
    }
    const redis = createRedisClient(t.config.redis);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `*${namespace}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of keys) {
          const type = await redis.type(key);
          const values: string[] =
            type === 'string'
              ? [(await redis.get(key)) ?? '']
              : type === 'hash'
                ? Object.entries(await redis.hgetall(key)).flat()
                : type === 'list'
                  ? await redis.lrange(key, 0, -1)
                  : type === 'set'
                    ? await redis.smembers(key)
                    : type === 'zset'
                      ? await redis.zrange(key, 0, -1)
                      : type === 'stream'
                        ? (await redis.xrange(key, '-', '+')).flatMap(([id, fields]) => [
                            id,
                            ...fields,
                          ])
                        : [];
          const text = values.join('\n').toLowerCase();
          for (const needle of needles) {
            if (text.includes(needle.toLowerCase())) found.push(`redis ${key} holds ${needle}`);
          }
        }
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
    return found;
  }

  it('erases a person everywhere, cancels their waiting delivery, suppresses them, and counts exactly', async () => {
    const caller = await t.given.caller();
    const user = await givenUser(t, 'admin', caller.accountId);
    const session = await signIn(t, user);
    const csvCampaign = await t.given.campaign(caller.accountId);
    const sheetCampaign = await t.given.campaign(caller.accountId);
    const pendingCampaign = await t.given.campaign(caller.accountId);
    receiver.behaviour = { status: 500, body: 'busy' };
    await t.given.endpoint(caller.campaignId, receiver.url, ['lead.created']);

    // 1. The API upload, with an Idempotency-Key (its stored response names the import).
    const uploaded = await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .set('Idempotency-Key', 'erasure-upload-1')
      .send(
        uploadBody(caller.campaignId, [
          { phone: ALICE.formats[0], email: ALICE.email, first_name: 'Alice' },
          { phone: BOB.phone, email: BOB.email, first_name: 'Bob' },
        ]),
      )
      .expect(202);
    expect(uploaded.body).toMatchObject({ valid_count: 2, invalid_count: 0 });

    // 2. A CSV import where the second of Alice's rows is rejected (the same phone again).
    await spreadsheet(
      session,
      csvCampaign,
      `phone,email,first_name\n${ALICE.formats[2]},${ALICE.email.toLowerCase()},Alice\n"${ALICE.formats[3]}",,Alice again\n`,
      true,
    );
    // 3. Another CSV import, and 4. an upload still waiting for its mapping (its file stored).
    await spreadsheet(
      session,
      sheetCampaign,
      `phone,email,first_name\n${ALICE.formats[1]},,Alice\n`,
      true,
    );
    await spreadsheet(
      session,
      pendingCampaign,
      `phone,email,first_name\n${ALICE.formats[1]},${ALICE.email},Alice\n`,
      false,
    );
    const [rejected] = await t.db.query(
      `SELECT count(*)::int AS n FROM lead_import_rejection r JOIN lead_import i ON i.id = r.import_id
        WHERE i.campaign_id = $1`,
      [csvCampaign],
    );
    expect(rejected.n).toBe(1);

    // Both deliveries failed twice (500) and wait on their third attempt, 15 s away
    // (time enough for the scan below on a busy machine: the erasure must come before it).
    let aliceDelivery = 0;
    await eventually(async () => {
      const rows: Array<{ id: string; phone: string; attempts: number; finished: number }> =
        await t.db.query(
          `SELECT d.id, e.body::jsonb -> 'data' ->> 'phone' AS phone,
                  (SELECT count(*)::int FROM webhook_delivery_attempt a WHERE a.delivery_id = d.id) AS attempts,
                  (SELECT count(*)::int FROM webhook_delivery_attempt a WHERE a.delivery_id = d.id AND a.finished_at IS NOT NULL) AS finished
             FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
            WHERE e.campaign_id = $1`,
          [caller.campaignId],
        );
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row).toMatchObject({ attempts: 2, finished: 2 });
      aliceDelivery = Number(rows.find((r) => r.phone === ALICE.e164)!.id);
    }, 20_000);
    expect(await findPerson(t.config.queuePrefix!)).not.toEqual([]);

    const erased = await erase(caller, {
      phone: ALICE.formats[3],
      email: ALICE.email,
      region: 'US',
    }).expect(201);
    expect(erased.body).toEqual({
      id: expect.any(String),
      campaign_id: null,
      created_at: expect.any(String),
      requested_by: `api_key:${caller.apiKeyId}`,
      suppressed: true,
      phone_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      email_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      key_id: 1,
      counts: {
        leads: 3,
        import_rejections: 1,
        // The upload waiting for its mapping (cancelled, file deleted) and the two imports
        // whose sample rows named her.
        spreadsheet_imports: 3,
        events: 1,
        deliveries_cancelled: 1,
        attempts: 2,
        idempotency_records: 1,
        suppression_entries: 2,
      },
    });
    const [delivery] = await t.db.query(
      'SELECT status, status_reason FROM webhook_delivery WHERE id = $1',
      [aliceDelivery],
    );
    expect(delivery).toEqual({ status: 'skipped', status_reason: 'erased' });
    const [audit] = await t.db.query(
      `SELECT actor_type, actor_key_prefix, details FROM audit_log_entry WHERE account_id = $1 AND action = 'erasure.create'`,
      [caller.accountId],
    );
    expect(audit).toEqual({
      actor_type: 'api_key',
      actor_key_prefix: expect.stringMatching(/^capi_/),
      details: expect.objectContaining({ receipt_id: erased.body.id, api_key_id: caller.apiKeyId }),
    });
    const read = await t
      .http()
      .get(`/api/v1/erasure-requests/${erased.body.id}`)
      .set('Authorization', `Bearer ${caller.token}`)
      .expect(200);
    expect(read.body).toEqual(erased.body);

    // The receiver recovers: Bob's delivery arrives, Alice's never does.
    receiver.behaviour = { status: 204 };
    const before = receiver.received.length;
    await eventually(async () => {
      const bodies = receiver.received.slice(before).map((r) => r.body);
      expect(bodies.some((b) => b.includes(BOB.email))).toBe(true);
    }, 30_000);
    await sleep(5_000);
    const after = receiver.received.slice(before).map((r) => r.body);
    expect(
      after.filter((b) => b.includes('4155550199') || b.toLowerCase().includes('alice')),
    ).toEqual([]);
    const [attempts] = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_delivery_attempt WHERE delivery_id = $1',
      [aliceDelivery],
    );
    expect(attempts.n).toBe(2);

    // A new upload of her is refused, row by row, and nothing of her is stored.
    const again = await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(
        uploadBody(
          caller.campaignId,
          [
            { phone: ALICE.formats[1], first_name: 'Alice' },
            { phone: '+1 415 555 0143', email: ALICE.email.toUpperCase() },
            { phone: ALICE.formats[2], first_name: 'Alice twice' },
          ],
          { skip_duplicates: false },
        ),
      )
      .expect(202);
    expect(again.body).toMatchObject({
      valid_count: 0,
      invalid_count: 3,
      errors: [
        { row: 0, var_field: 'phone', message: SUPPRESSED_MESSAGE },
        { row: 1, var_field: 'email', message: SUPPRESSED_MESSAGE },
        { row: 2, var_field: 'phone', message: expect.stringMatching(/^duplicate/) },
      ],
    });

    expect(await findPerson(t.config.queuePrefix!)).toEqual([]);
    const [bob] = await t.db.query('SELECT count(*)::int AS n FROM lead WHERE email = $1', [
      BOB.email,
    ]);
    expect(bob.n).toBe(1);
  }, 120_000);

  it('refuses a request without a phone or an email, a malformed phone, a list of identifiers, and erases nothing', async () => {
    const caller = await t.given.caller();
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(
        uploadBody(caller.campaignId, [{ phone: '+1 415 555 0177', email: 'carol@example.com' }]),
      )
      .expect(202);
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{}, 422, 'a phone or an email is required to name the person'],
      [{ phone: '12', region: 'US' }, 422, 'phone is not a valid phone number'],
      [{ phone: '415 555 0177' }, 422, 'phone is not a valid international phone number'],
      [
        {
          phone: Array.from({ length: 10_000 }, (_, i) => `+1415555${String(i).padStart(4, '0')}`),
        },
        422,
        'phone must be a string',
      ],
      [{ phones: ['+14155550177'] }, 400, 'unknown field phones'],
      [
        { email: 'carol@example.com', add_to_suppression_list: 'yes' },
        422,
        'suppress must be a boolean',
      ],
    ];
    for (const [body, status, message] of cases) {
      const res = await erase(caller, body).expect(status);
      expect(res.body).toEqual({
        error: expect.any(String),
        message: expect.stringContaining(message),
      });
    }
    const [left] = await t.db.query('SELECT count(*)::int AS n FROM lead WHERE campaign_id = $1', [
      caller.campaignId,
    ]);
    expect(left.n).toBe(1);
    const [receipts] = await t.db.query(
      'SELECT count(*)::int AS n FROM erasure_receipt WHERE account_id = $1',
      [caller.accountId],
    );
    expect(receipts.n).toBe(0);
  });

  it('lets a key limited to campaigns erase only in one of them, and keeps other accounts apart', async () => {
    const caller = await t.given.caller();
    const other = await t.given.caller();
    const limited = await t.given.apiKey(caller.accountId, [caller.campaignId]);
    const limitedToken = await t.given.token(limited.key);
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${other.token}`)
      .send(uploadBody(other.campaignId, [{ phone: '+1 415 555 0188' }]))
      .expect(202);
    const asLimited = (body: Record<string, unknown>) =>
      t
        .http()
        .post('/api/v1/erasure-requests')
        .set('Authorization', `Bearer ${limitedToken}`)
        .send(body);
    await asLimited({ phone: '+1 415 555 0188' }).expect(403);
    await asLimited({ phone: '+1 415 555 0188', campaign_id: other.campaignId }).expect(403);
    const own = await asLimited({
      phone: '+1 415 555 0188',
      campaign_id: caller.campaignId,
      add_to_suppression_list: false,
    }).expect(201);
    expect(own.body).toMatchObject({
      campaign_id: caller.campaignId,
      suppressed: false,
      counts: { leads: 0 },
    });
    // The other account's lead and upload are untouched.
    const [kept] = await t.db.query('SELECT count(*)::int AS n FROM lead WHERE campaign_id = $1', [
      other.campaignId,
    ]);
    expect(kept.n).toBe(1);
    await t
      .http()
      .get(`/api/v1/erasure-requests/${own.body.id}`)
      .set('Authorization', `Bearer ${other.token}`)
      .expect(404);
  });
  it('masks phones and emails for viewers in lead search, a lead, rejected rows and attempt bodies, and shows them to admins', async () => {
    const caller = await t.given.caller();
    const viewer = await signIn(t, await givenUser(t, 'viewer', caller.accountId));
    const admin = await signIn(t, await givenUser(t, 'admin', caller.accountId));
    receiver.behaviour = { status: 204 };
    await t.given.endpoint(caller.campaignId, receiver.url, ['lead.created']);
    const uploaded = await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(
        uploadBody(
          caller.campaignId,
          [
            { phone: '+1 415 555 0155', email: 'frank.viewer@acme.com', first_name: 'Frank' },
            { phone: '+1 415 555 0155', email: 'frank.twice@acme.com' },
          ],
          { skip_duplicates: false },
        ),
      )
      .expect(202);
    const get = (session: SignedIn, path: string) =>
      t.http().get(`${API}${path}`).set('Cookie', session.cookie).expect(200);

    // An exact phone still finds the lead for a viewer; the answer is masked.
    const search = `/campaigns/${caller.campaignId}/leads?q=${encodeURIComponent('(415) 555-0155')}`;
    const seen = (await get(viewer, search)).body.items;
    expect(seen).toEqual([
      expect.objectContaining({ phone: '+1 415 ••• ••55', email: 'f•••@acme.com' }),
    ]);
    expect((await get(admin, search)).body.items).toEqual([
      expect.objectContaining({ phone: '+14155550155', email: 'frank.viewer@acme.com' }),
    ]);
    const lead = (await get(viewer, `/leads/${seen[0].id}`)).body;
    expect(lead).toMatchObject({ phone: '+1 415 ••• ••55', email: 'f•••@acme.com' });

    const rejections = (await get(viewer, `/imports/${uploaded.body.import_id}/rejections`)).body;
    expect(JSON.stringify(rejections)).not.toMatch(/0155|frank\.twice/);
    expect(rejections.items[0].submitted).toEqual({
      phone: '•••••••••••••55',
      email: 'f•••@acme.com',
    });

    await receiver.waitFor(1);
    let attemptId = 0;
    await eventually(async () => {
      const [row] = await t.db.query(
        `SELECT a.id FROM webhook_delivery_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
           JOIN webhook_event e ON e.id = d.event_id WHERE e.lead_id = $1 AND a.finished_at IS NOT NULL`,
        [seen[0].id],
      );
      expect(row).toBeDefined();
      attemptId = Number(row.id);
    });
    const masked = (await get(viewer, `/attempts/${attemptId}`)).body;
    expect(JSON.stringify(masked)).not.toMatch(/14155550155|frank\.viewer/);
    expect(JSON.stringify(masked)).toContain('+1 415 ••• ••55');
    const full = (await get(admin, `/attempts/${attemptId}`)).body;
    expect(JSON.stringify(full)).toContain('frank.viewer@acme.com');
  });
});
