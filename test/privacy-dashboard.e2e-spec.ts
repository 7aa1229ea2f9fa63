/**
 * The dashboard's privacy routes (docs/dashboard.md#privacy): an admin erases a person and reads
 * the receipts, and manages the suppression list (size, add, remove, CSV import); a viewer is
 * refused every one of them and nothing is written. No answer and no audit entry names the
 * person: not the phone, not the email, not their keyed hashes.
 */
import { SUPPRESSION_CSV_MAX_BYTES } from '../src/privacy';
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';

const API = '/dashboard/api/privacy';
const ALICE = { phone: '+14155550199', email: 'alice.privacy@example.com' };
const BOB = { phone: '+14155550142', email: 'bob.kept@example.com' };
const CAROL = { phone: '+14155550123', email: 'carol.listed@example.com' };
/** Every text that would give the person away in an answer or an audit entry. */
const SECRETS = [ALICE.phone, ALICE.email, CAROL.phone, CAROL.email, '4155550199', '4155550123'];

describe('Privacy in the dashboard, admins only (docs/dashboard.md#privacy)', () => {
  let t: TestApp;
  let caller: Caller;
  let admin: GivenUser;
  let adminSession: SignedIn;
  let viewerSession: SignedIn;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
    caller = await t.given.caller();
    admin = await givenUser(t, 'admin', caller.accountId);
    const viewer = await givenUser(t, 'viewer', caller.accountId);
    adminSession = await signIn(t, admin);
    viewerSession = await signIn(t, viewer);
    // Alice and Bob uploaded, plus a row rejected for its phone that carries Alice's email.
    await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .set('Idempotency-Key', 'privacy-dashboard-1')
      .send(
        uploadBody(caller.campaignId, [
          { phone: ALICE.phone, email: ALICE.email, first_name: 'Alice' },
          { phone: BOB.phone, email: BOB.email, first_name: 'Bob' },
          { phone: 'not a phone', email: ALICE.email, first_name: 'Alice again' },
        ]),
      )
      .expect(202);
  });
  afterAll(() => t.close());

  const send = (
    session: SignedIn,
    method: 'get' | 'post',
    path: string,
    body?: Record<string, unknown>,
  ) => {
    const req = t
      .http()
      [method](`${API}${path}`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf);
    return body === undefined ? req : req.send(body);
  };
  const importCsv = (session: SignedIn, bytes: Buffer, query = '') =>
    t
      .http()
      .post(`${API}/suppressions/import${query}`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .set('Content-Type', 'application/octet-stream')
      .send(bytes);

  /** What the routes may change, for "nothing written". */
  async function state() {
    const [row] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM lead WHERE campaign_id = $2) AS leads,
              (SELECT count(*)::int FROM erasure_receipt WHERE account_id = $1) AS receipts,
              (SELECT count(*)::int FROM suppression_entry WHERE account_id = $1) AS suppressed,
              (SELECT count(*)::int FROM audit_log_entry WHERE account_id = $1) AS audited`,
      [caller.accountId, caller.campaignId],
    );
    return row as { leads: number; receipts: number; suppressed: number; audited: number };
  }

  async function privacyAudit(): Promise<Array<{ action: string; details: object }>> {
    return t.db.query(
      `SELECT action, details, actor_type, actor_email FROM audit_log_entry
        WHERE account_id = $1 AND (action LIKE 'erasure.%' OR action LIKE 'suppression.%')
        ORDER BY id`,
      [caller.accountId],
    );
  }

  const expectNoPersonIn = (value: unknown) => {
    const text = JSON.stringify(value).toLowerCase();
    for (const secret of SECRETS)
      expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
    expect(text).not.toMatch(/[0-9a-f]{64}/); // no keyed hash
  };

  it('refuses a viewer every privacy route with 403, writing nothing', async () => {
    const before = await state();
    const answers = [
      await send(viewerSession, 'post', '/erasures', { phone: ALICE.phone }),
      await send(viewerSession, 'get', '/erasures'),
      await send(viewerSession, 'get', '/suppressions'),
      await send(viewerSession, 'post', '/suppressions', { email: CAROL.email }),
      await send(viewerSession, 'post', '/suppressions/remove', { email: CAROL.email }),
      await importCsv(viewerSession, Buffer.from(`${CAROL.email}\r\n`)),
    ];
    expect(answers.map((res) => [res.status, res.body.error])).toEqual(
      Array.from({ length: 6 }, () => [403, 'forbidden']),
    );
    expect(await state()).toEqual(before);
  });

  it('refuses a body that names no one, a bad phone or an unknown field with 422, erasing nothing', async () => {
    const before = await state();
    for (const body of [{}, { phone: '12' }, { phone: ALICE.phone, add: true }, { phone: 7 }]) {
      const res = await send(adminSession, 'post', '/erasures', body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({
        body,
        status: 422,
        error: 'validation_failed',
      });
      expect(typeof res.body.message).toBe('string');
    }
    expect(await state()).toEqual(before);
  });

  it('answers 404 for a campaign of another account, erasing nothing', async () => {
    const other = await t.given.caller();
    const before = await state();
    const res = await send(adminSession, 'post', '/erasures', {
      phone: ALICE.phone,
      campaign_id: other.campaignId,
    });
    expect([res.status, res.body.error]).toEqual([404, 'not_found']);
    expect(await state()).toEqual(before);
  });

  it('erases a person for an admin: exact counts, their rows gone, others kept, audited without them', async () => {
    const res = await send(adminSession, 'post', '/erasures', {
      phone: ALICE.phone,
      email: ALICE.email,
    }).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      campaign_id: null,
      created_at: expect.any(String),
      requested_by: `user:${admin.id}`,
      requested_by_email: admin.email,
      suppressed: true,
      by_phone: true,
      by_email: true,
      counts: {
        leads: 1,
        import_rejections: 1,
        spreadsheet_imports: 0,
        events: 0,
        deliveries_cancelled: 0,
        attempts: 0,
        idempotency_records: 1,
        suppression_entries: 2,
      },
    });
    expectNoPersonIn(res.body);

    const leads: Array<{ phone: string }> = await t.db.query(
      'SELECT phone FROM lead WHERE campaign_id = $1 ORDER BY phone',
      [caller.campaignId],
    );
    expect(leads.map((l) => l.phone)).toEqual([BOB.phone]);
    const [rejections] = await t.db.query(
      `SELECT count(*)::int AS n FROM lead_import_rejection r JOIN lead_import i ON i.id = r.import_id
        WHERE i.campaign_id = $1`,
      [caller.campaignId],
    );
    expect(rejections.n).toBe(0);
    const [receipt] = await t.db.query(
      'SELECT requested_by, suppressed FROM erasure_receipt WHERE id = $1',
      [res.body.id],
    );
    expect(receipt).toEqual({ requested_by: `user:${admin.id}`, suppressed: true });
    expect((await state()).suppressed).toBe(2);

    const audit = await privacyAudit();
    expect(audit).toEqual([
      {
        action: 'erasure.create',
        actor_type: 'user',
        actor_email: admin.email,
        details: {
          receipt_id: res.body.id,
          campaign_id: null,
          suppressed: true,
          counts: res.body.counts,
        },
      },
    ]);
    expectNoPersonIn(audit);

    const list = await send(adminSession, 'get', '/erasures?limit=5').expect(200);
    expect(list.body).toEqual([res.body]);
    expectNoPersonIn(list.body);
  });

  it('counts, adds and removes suppression entries for an admin, audited with counts only', async () => {
    expect((await send(adminSession, 'get', '/suppressions').expect(200)).body).toEqual({
      entries: 2,
    });
    const added = await send(adminSession, 'post', '/suppressions', { email: CAROL.email });
    expect([added.status, added.body]).toEqual([200, { added: 1 }]);
    const again = await send(adminSession, 'post', '/suppressions', { email: CAROL.email });
    expect(again.body).toEqual({ added: 0 });
    expect((await send(adminSession, 'get', '/suppressions')).body).toEqual({ entries: 3 });
    const removed = await send(adminSession, 'post', '/suppressions/remove', {
      email: CAROL.email,
    });
    expect([removed.status, removed.body]).toEqual([200, { removed: 1 }]);
    expect((await send(adminSession, 'get', '/suppressions')).body).toEqual({ entries: 2 });
    const bad = await send(adminSession, 'post', '/suppressions', { email: 'not-an-email' });
    expect([bad.status, bad.body.error]).toEqual([422, 'validation_failed']);
    expect((await state()).suppressed).toBe(2);

    const audit = (await privacyAudit()).filter((e) => e.action !== 'erasure.create');
    expect(audit.map(({ action, details }) => ({ action, details }))).toEqual([
      { action: 'suppression.add', details: { added: 1 } },
      { action: 'suppression.add', details: { added: 0 } },
      { action: 'suppression.remove', details: { removed: 1 } },
    ]);
    expectNoPersonIn(audit);
  });

  it('imports a CSV: a formula cell refused and counted, the header skipped, valid cells added', async () => {
    const csv = `email,phone\r\n${CAROL.email},"=HYPERLINK(""http://x"")"\r\n,${CAROL.phone}\r\n`;
    const before = await state();
    const res = await importCsv(adminSession, Buffer.from(csv)).expect(200);
    expect(res.body).toEqual({
      rows: 5,
      added: 2,
      already_listed: 0,
      invalid: 2,
      formula_cells: 1,
    });
    expect((await state()).suppressed).toBe(before.suppressed + 2);
    const [entry] = (await privacyAudit()).filter((e) => e.action === 'suppression.import');
    expect(entry.details).toEqual(res.body);
    expectNoPersonIn(entry);
  });

  it('refuses an oversize CSV with 413, a file that is not text with 422 and JSON with 415, adding nothing', async () => {
    const before = await state();
    const oversize = Buffer.alloc(SUPPRESSION_CSV_MAX_BYTES + 1, 'a');
    const large = await importCsv(adminSession, oversize);
    expect([large.status, large.body.error]).toEqual([413, 'payload_too_large']);
    expect(large.body.message).toMatch(/at most 5 MiB/);

    const binary = await importCsv(adminSession, Buffer.from([0xff, 0xfe, 0x00, 0x41]));
    expect([binary.status, binary.body.error]).toEqual([422, 'validation_failed']);

    const json = await send(adminSession, 'post', '/suppressions/import', { file: CAROL.email });
    expect([json.status, json.body.error]).toEqual([415, 'unsupported_media_type']);

    const region = await importCsv(adminSession, Buffer.from('4155550123\r\n'), '?region=ZZ');
    expect([region.status, region.body.error]).toEqual([422, 'validation_failed']);
    expect(await state()).toEqual(before);
  });
});
