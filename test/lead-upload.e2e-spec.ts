import { startTestApp, type TestApp, uploadBody, type Caller } from './support/test-app';

const UPLOAD = '/api/v1/leads/upload';

describe('POST /leads/upload (docs/api.md#lead-upload)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const upload = (caller: Caller, body: unknown) =>
    t
      .http()
      .post(UPLOAD)
      .set('Authorization', `Bearer ${caller.token}`)
      .send(body as object);

  const storedLeads = (campaignId: number) =>
    t.db.query(
      `SELECT phone, first_name, last_name, email, company, title, tags, source, import_id
         FROM lead WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );

  const importsOf = (campaignId: number) =>
    t.db.query('SELECT * FROM lead_import WHERE campaign_id = $1 ORDER BY created_at', [
      campaignId,
    ]);

  describe('accepted uploads', () => {
    it('stores valid leads normalised and records the import', async () => {
      const me = await t.given.caller();
      const res = await upload(
        me,
        uploadBody(
          me.campaignId,
          [
            {
              phone: ' (415) 555-2671 ',
              first_name: ' Ada ',
              last_name: 'Lovelace',
              email: ' ada@example.com ',
              company: 'Analytical',
              title: 'Engineer',
            },
            {
              phone: '+44 20 7946 0958',
              first_name: '   ',
              email: '',
              company: null,
              ignored_field: 'x',
            },
          ],
          { source: 'crm-sync', tags: ['spring', 'vip'], disclaimer_version: 'v2.3' },
        ),
      ).expect(202);

      expect(res.body).toEqual({
        status: 'accepted',
        import_id: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        ),
        received_count: 2,
        valid_count: 2,
        invalid_count: 0,
        duplicate_count: 0,
        errors: [],
      });
      expect(await storedLeads(me.campaignId)).toEqual([
        {
          phone: '+14155552671',
          first_name: 'Ada',
          last_name: 'Lovelace',
          email: 'ada@example.com',
          company: 'Analytical',
          title: 'Engineer',
          tags: ['spring', 'vip'],
          source: 'crm-sync',
          import_id: res.body.import_id,
        },
        {
          phone: '+442079460958',
          first_name: null,
          last_name: null,
          email: null,
          company: null,
          title: null,
          tags: ['spring', 'vip'],
          source: 'crm-sync',
          import_id: res.body.import_id,
        },
      ]);
      const [record] = await importsOf(me.campaignId);
      expect(record).toMatchObject({
        id: res.body.import_id,
        api_key_id: me.apiKeyId,
        source: 'crm-sync',
        tags: ['spring', 'vip'],
        disclaimer_version: 'v2.3',
        client_ip: expect.stringMatching(/127\.0\.0\.1|::1/),
        received_count: 2,
        valid_count: 2,
        invalid_count: 0,
        duplicate_count: 0,
      });
      expect(Date.now() - new Date(record.compliance_acknowledged_at).getTime()).toBeLessThan(
        60_000,
      );
    });

    it('applies the defaults: source "api", no tags, disclaimer v1.0', async () => {
      const me = await t.given.caller();
      await upload(me, uploadBody(me.campaignId, [{ phone: '+14155552671' }])).expect(202);
      const [record] = await importsOf(me.campaignId);
      expect(record).toMatchObject({ source: 'api', tags: [], disclaimer_version: 'v1.0' });
      expect((await storedLeads(me.campaignId))[0]).toMatchObject({ source: 'api', tags: [] });
    });

    it("reads phones without + in the campaign's default region", async () => {
      const gb = await t.given.caller('GB');
      const res = await upload(
        gb,
        uploadBody(gb.campaignId, [{ phone: '020 7946 0958' }, { phone: '(415) 555-2671' }]),
      ).expect(202);
      expect(res.body.valid_count).toBe(1);
      expect(res.body.errors).toEqual([
        { row: 1, var_field: 'phone', message: 'phone is not a valid phone number' },
      ]);
      expect((await storedLeads(gb.campaignId)).map((l: { phone: string }) => l.phone)).toEqual([
        '+442079460958',
      ]);
    });

    it('accepts the many formats people type for one number, as one lead', async () => {
      const me = await t.given.caller();
      const formats = [
        '(415) 555-2671',
        '415.555.2671',
        '415-555-2671',
        '+1 415 555 2671',
        '14155552671',
        '+14155552671',
      ];
      const res = await upload(
        me,
        uploadBody(
          me.campaignId,
          formats.map((phone) => ({ phone })),
        ),
      ).expect(202);
      expect(res.body).toMatchObject({
        received_count: 6,
        valid_count: 6,
        invalid_count: 0,
        duplicate_count: 5,
      });
      expect(await storedLeads(me.campaignId)).toHaveLength(1);
    });

    it('records an import even when no lead is valid', async () => {
      const me = await t.given.caller();
      const res = await upload(me, uploadBody(me.campaignId, [{ phone: 'nope' }])).expect(202);
      expect(res.body).toMatchObject({
        received_count: 1,
        valid_count: 0,
        invalid_count: 1,
        duplicate_count: 0,
      });
      const [record] = await importsOf(me.campaignId);
      expect(record).toMatchObject({ id: res.body.import_id, valid_count: 0, invalid_count: 1 });
    });
  });

  describe('per-lead validation (docs/api.md#per-lead-validation)', () => {
    const LONG = 'x'.repeat(256);
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      ['phone missing', { first_name: 'A' }, 'phone', /required/],
      ['phone null', { phone: null }, 'phone', /required/],
      ['phone blank', { phone: '   ' }, 'phone', /required/],
      ['phone a number', { phone: 14155552671 }, 'phone', /string/],
      ['phone an object', { phone: { n: 1 } }, 'phone', /string/],
      ['phone not a number', { phone: 'call me' }, 'phone', /valid phone/],
      ['phone too short', { phone: '12345' }, 'phone', /valid phone/],
      ['phone impossible for its region', { phone: '+1 011 555 2671' }, 'phone', /valid phone/],
      ['email invalid', { phone: '+14155552671', email: 'not-an-email' }, 'email', /valid email/],
      ['email a number', { phone: '+14155552671', email: 5 }, 'email', /valid email/],
      ['first_name too long', { phone: '+14155552671', first_name: LONG }, 'first_name', /255/],
      ['last_name a number', { phone: '+14155552671', last_name: 7 }, 'last_name', /string/],
      ['company an array', { phone: '+14155552671', company: ['a'] }, 'company', /string/],
      ['title too long', { phone: '+14155552671', title: LONG }, 'title', /255/],
      [
        'first_name with a NUL character',
        { phone: '+14155552671', first_name: 'A\u0000B' },
        'first_name',
        /NUL/,
      ],
      [
        'email with a NUL character',
        { phone: '+14155552671', email: 'a\u0000@b.co' },
        'email',
        /valid email/,
      ],
    ];

    it.each(cases)('reports %s as one error', async (_name, lead, field, message) => {
      const me = await t.given.caller();
      const res = await upload(
        me,
        uploadBody(me.campaignId, [{ phone: '+14155550100' }, lead]),
      ).expect(202);
      expect(res.body).toMatchObject({
        received_count: 2,
        valid_count: 1,
        invalid_count: 1,
        duplicate_count: 0,
      });
      expect(res.body.errors).toEqual([
        { row: 1, var_field: field, message: expect.stringMatching(message) },
      ]);
      expect((await storedLeads(me.campaignId)).map((l: { phone: string }) => l.phone)).toEqual([
        '+14155550100',
      ]);
    });

    it('reports only the first failing field, in the order phone, email, first_name, last_name, company, title', async () => {
      const me = await t.given.caller();
      const res = await upload(
        me,
        uploadBody(me.campaignId, [
          { phone: 'bad', email: 'bad', first_name: 1, title: 2 },
          { phone: '+14155550101', email: 'bad', first_name: 1 },
          { phone: '+14155550102', title: 2, first_name: 1, last_name: 3 },
          { phone: '+14155550103', title: 2, company: 1 },
        ]),
      ).expect(202);
      expect(res.body.errors).toEqual([
        { row: 0, var_field: 'phone', message: expect.any(String) },
        { row: 1, var_field: 'email', message: expect.any(String) },
        { row: 2, var_field: 'first_name', message: expect.any(String) },
        { row: 3, var_field: 'company', message: expect.any(String) },
      ]);
      expect(res.body.invalid_count).toBe(4);
    });

    it('counts 255 characters (not UTF-16 units) as the limit', async () => {
      const me = await t.given.caller();
      const emoji = '😀'.repeat(255);
      const res = await upload(
        me,
        uploadBody(me.campaignId, [{ phone: '+14155550100', company: emoji }]),
      ).expect(202);
      expect(res.body.valid_count).toBe(1);
      expect((await storedLeads(me.campaignId))[0].company).toBe(emoji);
    });
  });

  describe('duplicates (docs/api.md#duplicates-and-counts)', () => {
    it('skip_duplicates true (default) skips stored and repeated phones silently, overwriting nothing', async () => {
      const me = await t.given.caller();
      await upload(
        me,
        uploadBody(me.campaignId, [{ phone: '+14155550100', first_name: 'Original' }]),
      ).expect(202);

      const res = await upload(
        me,
        uploadBody(me.campaignId, [
          { phone: '(415) 555-0100', first_name: 'Overwrite?' },
          { phone: '+14155550200' },
          { phone: '415.555.0200', first_name: 'Repeat' },
          { phone: 'bad' },
        ]),
      ).expect(202);

      expect(res.body).toMatchObject({
        received_count: 4,
        valid_count: 3,
        invalid_count: 1,
        duplicate_count: 2,
      });
      expect(res.body.errors).toEqual([
        { row: 3, var_field: 'phone', message: expect.any(String) },
      ]);
      const leads = await storedLeads(me.campaignId);
      expect(
        leads.map((l: { phone: string; first_name: string }) => [l.phone, l.first_name]),
      ).toEqual([
        ['+14155550100', 'Original'],
        ['+14155550200', null],
      ]);
      const [, second] = await importsOf(me.campaignId);
      expect(second).toMatchObject({
        received_count: 4,
        valid_count: 3,
        invalid_count: 1,
        duplicate_count: 2,
      });
    });

    it('skip_duplicates false reports stored and repeated phones as invalid leads', async () => {
      const me = await t.given.caller();
      await upload(me, uploadBody(me.campaignId, [{ phone: '+14155550100' }])).expect(202);

      const res = await upload(
        me,
        uploadBody(
          me.campaignId,
          [
            { phone: '+14155550300' },
            { phone: '(415) 555-0100' },
            { phone: '+1 415 555 0300' },
            { phone: '+14155550301' },
          ],
          { skip_duplicates: false },
        ),
      ).expect(202);

      expect(res.body).toMatchObject({
        received_count: 4,
        valid_count: 2,
        invalid_count: 2,
        duplicate_count: 0,
      });
      expect(res.body.errors).toEqual([
        {
          row: 1,
          var_field: 'phone',
          message: 'duplicate: a lead with this phone already exists in the campaign',
        },
        {
          row: 2,
          var_field: 'phone',
          message: 'duplicate: a lead with this phone already exists in the campaign',
        },
      ]);
      expect(
        (await storedLeads(me.campaignId)).map((l: { phone: string }) => l.phone).sort(),
      ).toEqual(['+14155550100', '+14155550300', '+14155550301']);
      const [, second] = await importsOf(me.campaignId);
      expect(second).toMatchObject({ valid_count: 2, invalid_count: 2, duplicate_count: 0 });
    });

    it('treats the same phone in two campaigns as two leads', async () => {
      const me = await t.given.caller();
      const other = await t.given.campaign(me.accountId);
      await upload(me, uploadBody(me.campaignId, [{ phone: '+14155550100' }])).expect(202);
      const res = await upload(me, uploadBody(other, [{ phone: '+14155550100' }])).expect(202);
      expect(res.body).toMatchObject({ valid_count: 1, duplicate_count: 0 });
    });

    it('creates exactly one lead when concurrent uploads carry the same phone', async () => {
      const me = await t.given.caller();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          upload(
            me,
            uploadBody(me.campaignId, [{ phone: '+14155550999', first_name: `racer ${i}` }]),
          ),
        ),
      );
      for (const res of results) {
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({ received_count: 1, valid_count: 1, invalid_count: 0 });
      }
      expect(results.filter((r) => r.body.duplicate_count === 0)).toHaveLength(1);
      expect(await storedLeads(me.campaignId)).toHaveLength(1);
    });

    it('never deadlocks when concurrent uploads overlap in opposite orders', async () => {
      const me = await t.given.caller();
      const phones = Array.from({ length: 400 }, (_, i) => ({
        phone: `+1415555${String(1000 + i).padStart(4, '0')}`,
      }));
      const reversed = [...phones].reverse();
      const results = await Promise.all(
        [phones, reversed, phones, reversed].map((leads, i) =>
          upload(me, uploadBody(me.campaignId, leads, { skip_duplicates: i % 2 === 0 })),
        ),
      );
      for (const res of results) expect(res.status).toBe(202);
      expect(await storedLeads(me.campaignId)).toHaveLength(400);
      const created = results.reduce(
        (sum, r) => sum + (r.body.valid_count as number) - (r.body.duplicate_count as number),
        0,
      );
      expect(created).toBe(400);
    });
  });

  describe('envelope (docs/api.md#the-upload-body)', () => {
    let me: Caller;
    beforeAll(async () => {
      me = await t.given.caller();
    });

    it.each([
      ['missing', undefined],
      ['false', false],
      ['the string "true"', 'true'],
      ['1', 1],
      ['null', null],
    ])(
      'answers 400 compliance_not_acknowledged when compliance_acknowledged is %s',
      async (_name, value) => {
        const body: Record<string, unknown> = uploadBody(me.campaignId, [
          { phone: '+14155550100' },
        ]);
        if (value === undefined) delete body.compliance_acknowledged;
        else body.compliance_acknowledged = value;
        const res = await upload(me, body).expect(400);
        expect(res.body).toEqual({
          error: 'compliance_not_acknowledged',
          message: expect.any(String),
        });
      },
    );

    it('answers 400 bad_request when leads is missing', async () => {
      const res = await upload(me, {
        campaign_id: me.campaignId,
        compliance_acknowledged: true,
      }).expect(400);
      expect(res.body).toEqual({ error: 'bad_request', message: 'leads is required' });
    });

    const tooMany = Array.from({ length: 10_001 }, () => ({ phone: '+14155550100' }));
    it.each([
      ['leads is not an array', { leads: { phone: '1' } }, /leads must be an array/],
      ['leads is empty', { leads: [] }, /at least 1/],
      ['leads has 10,001 items', { leads: tooMany }, /at most 10000/],
      [
        'an element of leads is not an object',
        { leads: [{ phone: '+14155550100' }, 'x', null, [1]] },
        /leads\[1\] must be an object; leads\[2\] must be an object; leads\[3\] must be an object/,
      ],
      ['source is not a string', { source: 5 }, /source must be a string/],
      ['source is over 100 characters', { source: 's'.repeat(101) }, /source/],
      ['source is null', { source: null }, /source must be a string/],
      ['tags is not an array', { tags: 'vip' }, /tags must be an array of strings/],
      ['tags holds a number', { tags: ['ok', 3] }, /tags must be an array of strings/],
      ['a tag is empty', { tags: [''] }, /1 to 64/],
      ['a tag is over 64 characters', { tags: ['t'.repeat(65)] }, /1 to 64/],
      ['tags has 51 items', { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, /at most 50/],
      [
        'skip_duplicates is a string',
        { skip_duplicates: 'true' },
        /skip_duplicates must be a boolean/,
      ],
      [
        'disclaimer_version is over 32 characters',
        { disclaimer_version: 'v'.repeat(33) },
        /disclaimer_version/,
      ],
      ['a top-level field is unknown', { campaign: 3 }, /campaign is not a known field/],
      ['source holds a NUL character', { source: 'crm\u0000' }, /source must not contain NUL/],
      ['a tag holds a NUL character', { tags: ['ok', '\u0000'] }, /tags must not contain NUL/],
    ])('answers 422 validation_failed when %s, writing nothing', async (_name, patch, message) => {
      const body = { ...uploadBody(me.campaignId, [{ phone: '+14155550100' }]), ...patch };
      const res = await upload(me, body).expect(422);
      expect(res.body).toEqual({
        error: 'validation_failed',
        message: expect.stringMatching(message),
      });
      expect(await importsOf(me.campaignId)).toHaveLength(0);
      expect(await storedLeads(me.campaignId)).toHaveLength(0);
    });

    it('names every envelope problem in one message', async () => {
      const body = {
        ...uploadBody(me.campaignId, [{ phone: '+14155550100' }, 7]),
        tags: 'x',
        extra: true,
      };
      const res = await upload(me, body).expect(422);
      expect(res.body.message).toContain('leads[1] must be an object');
      expect(res.body.message).toContain('tags must be an array of strings');
      expect(res.body.message).toContain('extra is not a known field');
    });

    it('accepts exactly 10,000 leads', async () => {
      const caller = await t.given.caller();
      const leads = Array.from({ length: 10_000 }, (_, i) => ({
        phone: `+1212${String(2000000 + i)}`,
      }));
      const res = await upload(caller, uploadBody(caller.campaignId, leads)).expect(202);
      expect(res.body).toMatchObject({
        received_count: 10_000,
        valid_count: 10_000,
        invalid_count: 0,
        duplicate_count: 0,
      });
      const [{ n }] = await t.db.query(
        'SELECT count(*)::int AS n FROM lead WHERE campaign_id = $1',
        [caller.campaignId],
      );
      expect(n).toBe(10_000);
    });
  });

  describe('order of checks (docs/api.md#errors)', () => {
    it('checks the token before campaign_id', async () => {
      const res = await t.http().post(UPLOAD).send({ campaign_id: 'x' }).expect(401);
      expect(res.body.error).toBe('unauthorized');
    });

    it('checks campaign_id before campaign access and compliance', async () => {
      const me = await t.given.caller();
      const res = await upload(me, { campaign_id: 0, compliance_acknowledged: false }).expect(400);
      expect(res.body.error).toBe('invalid_campaign_id');
    });

    it('checks campaign access before compliance', async () => {
      const me = await t.given.caller();
      const other = await t.given.caller();
      const res = await upload(me, {
        campaign_id: other.campaignId,
        compliance_acknowledged: false,
      }).expect(403);
      expect(res.body.error).toBe('forbidden');
    });

    it('checks compliance before leads presence', async () => {
      const me = await t.given.caller();
      const res = await upload(me, { campaign_id: me.campaignId }).expect(400);
      expect(res.body.error).toBe('compliance_not_acknowledged');
    });

    it('checks leads presence before the envelope shape', async () => {
      const me = await t.given.caller();
      const res = await upload(me, {
        campaign_id: me.campaignId,
        compliance_acknowledged: true,
        tags: 5,
      }).expect(400);
      expect(res.body).toEqual({ error: 'bad_request', message: 'leads is required' });
    });

    it('checks the envelope before per-lead validation', async () => {
      const me = await t.given.caller();
      const res = await upload(
        me,
        uploadBody(me.campaignId, [{ phone: 'bad' }], { tags: 5 }),
      ).expect(422);
      expect(res.body.error).toBe('validation_failed');
    });
  });

  describe('atomicity (docs/api.md#duplicates-and-counts)', () => {
    const POISON = '+14155550666';
    beforeAll(async () => {
      // A fault injected inside the transaction, after the import record and other leads were written.
      await t.db.query(`
        CREATE OR REPLACE FUNCTION test_poison_lead() RETURNS trigger AS $$
        BEGIN
          IF NEW.phone = '${POISON}' THEN RAISE EXCEPTION 'injected fault'; END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`);
      await t.db.query(
        'CREATE TRIGGER test_poison_lead BEFORE INSERT ON lead FOR EACH ROW EXECUTE FUNCTION test_poison_lead()',
      );
    });
    afterAll(async () => {
      await t.db.query('DROP TRIGGER IF EXISTS test_poison_lead ON lead');
      await t.db.query('DROP FUNCTION IF EXISTS test_poison_lead()');
    });

    it('leaves no lead and no import when the upload fails part-way, and answers a generic 500', async () => {
      const me = await t.given.caller();
      const leads = [{ phone: '+14155550001' }, { phone: POISON }, { phone: '+14155550999' }];
      const res = await upload(me, uploadBody(me.campaignId, leads)).expect(500);
      expect(res.body).toEqual({
        error: 'internal_error',
        message: 'An unexpected error occurred; it has been logged',
      });
      expect(JSON.stringify(res.body)).not.toMatch(/injected|INSERT|lead/);
      expect(await storedLeads(me.campaignId)).toHaveLength(0);
      expect(await importsOf(me.campaignId)).toHaveLength(0);
    });
  });
});
