/**
 * Import history and rejected rows (docs/dashboard.md#imports): uploads through the public
 * API, then their compliance records, counts and rejected rows through the dashboard's routes,
 * checked against `lead_import` and `lead_import_rejection`; the CSV download neutralised
 * against formula injection; paging, ownership, bad input, idempotent replays and retention.
 */
import { DeliveryRetention } from '../src/delivery/retention/delivery-retention.service';
import { givenUser, signIn } from './support/dashboard';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';

describe('Import history and rejected rows (docs/dashboard.md#imports)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
  });
  afterAll(() => t.close());

  async function customer() {
    const caller = await t.given.caller();
    // An admin: rejected rows are read as submitted; a viewer's are masked
    // (docs/privacy.md#contact-details-by-role, test/erasure.e2e-spec.ts).
    const admin = await signIn(t, await givenUser(t, 'admin', caller.accountId));
    const get = (path: string) => t.http().get(`/dashboard/api${path}`).set('Cookie', admin.cookie);
    return { caller, get };
  }

  const upload = (
    caller: Caller,
    leads: unknown[],
    extra: Record<string, unknown> = {},
    key?: string,
  ) => {
    const req = t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`);
    if (key) req.set('Idempotency-Key', key);
    return req.send(uploadBody(caller.campaignId, leads, extra)).expect(202);
  };

  const BAD_LEADS = [
    { phone: '+14155550100', first_name: 'Ada' },
    { phone: '12345', first_name: '=HYPERLINK("http://evil.example","x")' },
    { phone: '+14155550101', email: 'not-an-email', company: '+cmd|calc' },
    { first_name: '@SUM(A1)', last_name: '-2+3', title: '\tTab', extra: 'ignored' },
    { phone: '+14155550102' },
  ];

  it('lists each upload with its compliance record and counts, and keeps its rejected rows as submitted', async () => {
    const { caller, get } = await customer();
    const first = await upload(caller, [{ phone: '+14155550199' }]);
    const second = await upload(caller, BAD_LEADS, {
      source: 'crm-sync',
      tags: ['spring'],
      disclaimer_version: 'v2.1',
    });

    const list = await get(`/campaigns/${caller.campaignId}/imports`).expect(200);
    expect(list.body.next_cursor).toBeNull();
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([
      second.body.import_id,
      first.body.import_id,
    ]);
    const [row] = await t.db.query(
      `SELECT created_at, compliance_acknowledged_at, client_ip FROM lead_import WHERE id = $1`,
      [second.body.import_id],
    );
    const [key] = await t.db.query('SELECT name, key_prefix FROM api_key WHERE id = $1', [
      caller.apiKeyId,
    ]);
    expect(list.body.items[0]).toEqual({
      id: second.body.import_id,
      campaign_id: caller.campaignId,
      created_at: row.created_at.toISOString(),
      api_key: { id: caller.apiKeyId, name: key.name, prefix: key.key_prefix },
      user: null,
      spreadsheet_import_id: null,
      source: 'crm-sync',
      tags: ['spring'],
      disclaimer_version: 'v2.1',
      compliance_acknowledged_at: row.compliance_acknowledged_at.toISOString(),
      client_ip: row.client_ip,
      received_count: 5,
      valid_count: 2,
      invalid_count: 3,
      duplicate_count: 0,
      new_count: 2,
      rejected_rows_kept: 3,
    });
    expect(row.client_ip).toMatch(/127\.0\.0\.1|::1/);
    expect((await get(`/imports/${second.body.import_id}`).expect(200)).body).toEqual(
      list.body.items[0],
    );

    // The rejected rows: as the 202's errors said, with the lead fields as submitted.
    const rejections = await get(`/imports/${second.body.import_id}/rejections`).expect(200);
    expect(rejections.body).toEqual({
      items: [
        {
          row: 1,
          field: 'phone',
          message: 'phone is not a valid phone number',
          submitted: BAD_LEADS[1],
        },
        {
          row: 2,
          field: 'email',
          message: 'email is not a valid email address',
          submitted: BAD_LEADS[2],
        },
        {
          row: 3,
          field: 'phone',
          message: 'phone is required',
          submitted: { first_name: '@SUM(A1)', last_name: '-2+3', title: '\tTab' },
        },
      ],
      next_cursor: null,
    });
    expect(
      second.body.errors.map((e: { row: number; var_field: string; message: string }) => [
        e.row,
        e.var_field,
        e.message,
      ]),
    ).toEqual(
      rejections.body.items.map((r: { row: number; field: string; message: string }) => [
        r.row,
        r.field,
        r.message,
      ]),
    );
    // An import with no rejected row has none.
    expect((await get(`/imports/${first.body.import_id}/rejections`).expect(200)).body).toEqual({
      items: [],
      next_cursor: null,
    });

    // Pages of two.
    const page1 = await get(`/imports/${second.body.import_id}/rejections?limit=2`).expect(200);
    expect(page1.body.items.map((r: { row: number }) => r.row)).toEqual([1, 2]);
    const page2 = await get(
      `/imports/${second.body.import_id}/rejections?limit=2&cursor=${page1.body.next_cursor}`,
    ).expect(200);
    expect(page2.body).toMatchObject({ items: [{ row: 3 }], next_cursor: null });
    const imports1 = await get(`/campaigns/${caller.campaignId}/imports?limit=1`).expect(200);
    const imports2 = await get(
      `/campaigns/${caller.campaignId}/imports?limit=1&cursor=${imports1.body.next_cursor}`,
    ).expect(200);
    expect([imports1.body.items[0].id, imports2.body.items[0].id]).toEqual([
      second.body.import_id,
      first.body.import_id,
    ]);
    expect(imports2.body.next_cursor).toBeNull();
  });

  it('counts a re-imported file as duplicates skipped, not new leads: rows read = new + duplicates + rejected', async () => {
    const { caller, get } = await customer();
    // Four distinct leads, a repeat of the first phone (skipped, valid), a broken phone.
    const FILE = [
      { phone: '+14155550300' },
      { phone: '+14155550301' },
      { phone: '+14155550302' },
      { phone: '+14155550300', first_name: 'Again' },
      { phone: '+14155550303' },
      { phone: '123' },
    ];
    const first = await upload(caller, FILE);
    const second = await upload(caller, FILE);
    // The public API's counts keep their meaning: valid includes the duplicates skipped.
    expect(second.body).toMatchObject({
      received_count: 6,
      valid_count: 5,
      invalid_count: 1,
      duplicate_count: 5,
    });

    const counts = (i: Record<string, unknown>) => ({
      id: i.id,
      received_count: i.received_count,
      new_count: i.new_count,
      duplicate_count: i.duplicate_count,
      invalid_count: i.invalid_count,
      valid_count: i.valid_count,
    });
    const list = await get(`/campaigns/${caller.campaignId}/imports`).expect(200);
    expect(list.body.items.map(counts)).toEqual([
      {
        id: second.body.import_id,
        received_count: 6,
        new_count: 0,
        duplicate_count: 5,
        invalid_count: 1,
        valid_count: 5,
      },
      {
        id: first.body.import_id,
        received_count: 6,
        new_count: 4,
        duplicate_count: 1,
        invalid_count: 1,
        valid_count: 5,
      },
    ]);
    for (const item of list.body.items) {
      expect(item.new_count + item.duplicate_count + item.invalid_count).toBe(item.received_count);
    }
    const detail = await get(`/imports/${second.body.import_id}`).expect(200);
    expect(counts(detail.body)).toEqual(counts(list.body.items[0]));
    // The database: four leads, all from the first import; the records as the 202s answered.
    expect(
      await t.db.query(
        'SELECT import_id, count(*)::int AS n FROM lead WHERE campaign_id = $1 GROUP BY import_id',
        [caller.campaignId],
      ),
    ).toEqual([{ import_id: first.body.import_id, n: 4 }]);
    expect(
      await t.db.query(
        `SELECT received_count, valid_count, invalid_count, duplicate_count FROM lead_import
          WHERE campaign_id = $1 ORDER BY created_at, id`,
        [caller.campaignId],
      ),
    ).toEqual([
      { received_count: 6, valid_count: 5, invalid_count: 1, duplicate_count: 1 },
      { received_count: 6, valid_count: 5, invalid_count: 1, duplicate_count: 5 },
    ]);
  });

  it('downloads the rejected rows as CSV, every cell a spreadsheet would run as a formula neutralised', async () => {
    const { caller, get } = await customer();
    const { body } = await upload(caller, BAD_LEADS);
    const res = await get(`/imports/${body.import_id}/rejections.csv`)
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => done(null, text));
      })
      .expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="import-${body.import_id}-rejected.csv"`,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toBe(
      [
        'row,field,message,phone,email,first_name,last_name,company,title',
        `1,phone,phone is not a valid phone number,12345,,"'=HYPERLINK(""http://evil.example"",""x"")",,,`,
        `2,email,email is not a valid email address,'+14155550101,not-an-email,,,'+cmd|calc,`,
        `3,phone,phone is required,,,'@SUM(A1),'-2+3,,'\tTab`,
        '',
      ].join('\r\n'),
    );
  });

  it('keeps nothing twice for a replayed upload, and nothing for an upload refused whole', async () => {
    const { caller, get } = await customer();
    const once = await upload(caller, BAD_LEADS, {}, 'replay-1');
    const again = await upload(caller, BAD_LEADS, {}, 'replay-1');
    expect(again.body.import_id).toBe(once.body.import_id);
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, [{ phone: '12345' }], { tags: 'not-an-array' }))
      .expect(422);
    const rows = await t.db.query(
      `SELECT i.id, count(r.row)::int AS rejected FROM lead_import i
         LEFT JOIN lead_import_rejection r ON r.import_id = i.id
        WHERE i.campaign_id = $1 GROUP BY i.id`,
      [caller.campaignId],
    );
    expect(rows).toEqual([{ id: once.body.import_id, rejected: 3 }]);
    expect(
      (await get(`/campaigns/${caller.campaignId}/imports`).expect(200)).body.items,
    ).toHaveLength(1);
  });

  it("answers 404 for another account's campaign or import, an id that is no UUID too, 422 for a bad limit or cursor", async () => {
    const mine = await customer();
    const theirs = await customer();
    const { body } = await upload(theirs.caller, BAD_LEADS);
    for (const path of [
      `/campaigns/${theirs.caller.campaignId}/imports`,
      `/imports/${body.import_id}`,
      `/imports/${body.import_id}/rejections`,
      `/imports/${body.import_id}/rejections.csv`,
      '/imports/00000000-0000-4000-8000-000000000000',
    ]) {
      const res = await mine.get(path).expect(404);
      expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
    // An id that is not a UUID names no import either.
    for (const path of [
      '/imports/42',
      '/imports/not-a-uuid/rejections',
      "/imports/'%3B--/rejections.csv",
    ]) {
      const res = await mine.get(path).expect(404);
      expect(res.body.error).toBe('not_found');
    }
    const own = await upload(mine.caller, BAD_LEADS);
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=x',
      'cursor=nope',
      'cursor=eDE',
      'other=1',
    ]) {
      const res = await mine.get(`/imports/${own.body.import_id}/rejections?${query}`).expect(422);
      expect(res.body.error).toBe('validation_failed');
    }
    await mine.get(`/campaigns/${mine.caller.campaignId}/imports?limit=201`).expect(422);
  });

  it('forgets rejected rows after DELIVERY_RETENTION_DAYS, keeping the import and its counts', async () => {
    const { caller, get } = await customer();
    const { body } = await upload(caller, BAD_LEADS);
    await t.db.query(
      `UPDATE lead_import_rejection SET created_at = now() - interval '40 days' WHERE import_id = $1`,
      [body.import_id],
    );
    const report = await t.app.get(DeliveryRetention).run(Date.now());
    expect(report!.deletedRejections).toBeGreaterThanOrEqual(3);
    expect(
      await t.db.query('SELECT row FROM lead_import_rejection WHERE import_id = $1', [
        body.import_id,
      ]),
    ).toEqual([]);
    expect((await get(`/imports/${body.import_id}`).expect(200)).body).toMatchObject({
      invalid_count: 3,
      rejected_rows_kept: 0,
    });
  });
});
