/**
 * Contact details by role in the dashboard's downloads and spreadsheet samples
 * (docs/privacy.md#contact-details-by-role): a viewer gets phones and emails masked in an
 * import's rejected-rows CSV, a spreadsheet import's rejected-rows CSV and a spreadsheet
 * upload's sample rows; an admin gets them in full.
 */
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';

const API = '/dashboard/api';
const PHONE = '+14155550177';
const EMAIL = 'dana.masked@example.com';
const MASKED_PHONE = '+1 415 ••• ••77';
const MASKED_EMAIL = 'd•••@example.com';

describe('Contact details by role in downloads and samples (docs/privacy.md#contact-details-by-role)', () => {
  let t: TestApp;
  let caller: Caller;
  let admin: SignedIn;
  let viewer: SignedIn;
  let importId: string;
  let spreadsheetId: string;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_SIGN_IN_PER_IP: '1000000' });
    caller = await t.given.caller();
    admin = await signIn(t, await givenUser(t, 'admin', caller.accountId));
    viewer = await signIn(t, await givenUser(t, 'viewer', caller.accountId));
    // A row rejected for its first name (too long), holding a valid phone and email.
    const uploaded = await t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(
        uploadBody(caller.campaignId, [
          { phone: PHONE, email: EMAIL, first_name: 'x'.repeat(300) },
        ]),
      )
      .expect(202);
    importId = uploaded.body.import_id as string;
    expect(uploaded.body.errors).toHaveLength(1);

    // A spreadsheet whose second row is rejected (no valid phone) but holds the email.
    const csv = `phone,email,first_name\r\n${PHONE},${EMAIL},Dana\r\nnope,${EMAIL},Dana again\r\n`;
    const sheet = await t
      .http()
      .post(`${API}/campaigns/${caller.campaignId}/spreadsheet-imports?file_name=people.csv`)
      .set('Cookie', admin.cookie)
      .set('X-CSRF-Token', admin.csrf)
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from(csv))
      .expect(201);
    spreadsheetId = sheet.body.id as string;
  });
  afterAll(() => t.close());

  const get = (session: SignedIn, path: string) =>
    t.http().get(`${API}${path}`).set('Cookie', session.cookie).buffer(true);

  it('masks the submitted phone and email in an import’s rejected-rows CSV for a viewer only', async () => {
    const seen = await get(viewer, `/imports/${importId}/rejections.csv`).expect(200);
    expect(seen.headers['content-type']).toMatch(/^text\/csv/);
    expect(seen.text).toContain(MASKED_PHONE);
    expect(seen.text).toContain(MASKED_EMAIL);
    expect(seen.text).not.toContain(PHONE);
    expect(seen.text).not.toContain(EMAIL);

    const full = await get(admin, `/imports/${importId}/rejections.csv`).expect(200);
    expect(full.text).toContain(`'${PHONE}`); // a leading + is neutralised against formulas
    expect(full.text).toContain(EMAIL);
    expect(full.text).not.toContain(MASKED_EMAIL);
  });

  it('masks a spreadsheet upload’s sample rows for a viewer only', async () => {
    const seen = await get(viewer, `/spreadsheet-imports/${spreadsheetId}`).expect(200);
    expect(seen.body.headers).toEqual(['phone', 'email', 'first_name']);
    expect(seen.body.sample_rows).toEqual([
      [MASKED_PHONE, MASKED_EMAIL, 'Dana'],
      ['••pe', MASKED_EMAIL, 'Dana again'],
    ]);
    const full = await get(admin, `/spreadsheet-imports/${spreadsheetId}`).expect(200);
    expect(full.body.sample_rows).toEqual([
      [PHONE, EMAIL, 'Dana'],
      ['nope', EMAIL, 'Dana again'],
    ]);
  });

  it('masks a spreadsheet import’s rejected-rows CSV for a viewer only', async () => {
    await t
      .http()
      .post(`${API}/spreadsheet-imports/${spreadsheetId}/start`)
      .set('Cookie', admin.cookie)
      .set('X-CSRF-Token', admin.csrf)
      .send({
        mapping: { phone: 0, email: 1, first_name: 2 },
        compliance_acknowledged: true,
        skip_duplicates: false,
      })
      .expect(202);
    await eventually(async () => {
      const [row] = await t.db.query('SELECT status FROM spreadsheet_import WHERE id = $1', [
        spreadsheetId,
      ]);
      expect(row.status).toBe('done');
    });
    const seen = await get(viewer, `/spreadsheet-imports/${spreadsheetId}/rejections.csv`).expect(
      200,
    );
    expect(seen.text.split('\r\n').filter(Boolean)).toHaveLength(2); // the header and one row
    expect(seen.text).toContain(MASKED_EMAIL);
    expect(seen.text).not.toContain(EMAIL);
    const full = await get(admin, `/spreadsheet-imports/${spreadsheetId}/rejections.csv`).expect(
      200,
    );
    expect(full.text).toContain(EMAIL);
    expect(full.text).toContain('nope');
  });
});
