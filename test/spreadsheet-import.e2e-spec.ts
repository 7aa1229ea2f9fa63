/**
 * Spreadsheet imports from the dashboard (docs/dashboard.md#spreadsheet-imports): a CSV or XLSX
 * file streamed in, its header matched to lead fields, a validated preview, the import run by
 * the worker in chunks of 10,000 (each a `lead_import` with the user's compliance record), its
 * progress, a restart in the middle resumed without a lead imported twice, cancel, the rejected
 * rows by file row, and every refusal leaving nothing behind.
 */
import ExcelJS from 'exceljs';
import { mapHeaders } from '../packages/client/src/import/mapping';
import { SpreadsheetImports } from '../src/leads/spreadsheet';
import { DELETE_UNSTARTED_SQL } from '../src/leads/spreadsheet/spreadsheet-imports.repository';
import { SPREADSHEET_CHUNK_SIZE } from '../src/leads/spreadsheet-worker/spreadsheet-import.runner';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, type TestApp } from './support/test-app';

const API = '/dashboard/api';

/** A CSV of `rows` leads under CRM-style headers; every 50th phone is broken. */
function crmCsv(rows: number, offset = 0): { csv: string; invalid: number[] } {
  const lines = ['Mobile;First Name;Surname;E-mail;Company Name;Lead score'];
  const invalid: number[] = [];
  for (let i = 0; i < rows; i++) {
    const n = offset + i;
    const broken = i % 50 === 49;
    if (broken) invalid.push(i + 2);
    const phone = broken ? `12${n}` : `(415) ${String(2_000_000 + n).replace(/^(\d{3})/, '$1-')}`;
    lines.push(`${phone};Ada${n};Lovelace;ada${n}@example.com;"Engines; Ltd";${n % 10}`);
  }
  return { csv: '\ufeff' + lines.join('\r\n') + '\r\n', invalid };
}

describe('Spreadsheet imports (docs/dashboard.md#spreadsheet-imports)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_SIGN_IN_PER_IP: '1000000', SPREADSHEET_UPLOAD_TTL: '2h' });
  });
  afterAll(() => t.close());

  async function admin() {
    const user = await givenUser(t, 'admin');
    const session = await signIn(t, user);
    const campaignId = await t.given.campaign(user.accountId);
    return { user, session, campaignId };
  }

  const upload = (session: SignedIn, campaignId: number, body: Buffer | string, name = 'crm.csv') =>
    t
      .http()
      .post(
        `${API}/campaigns/${campaignId}/spreadsheet-imports?file_name=${encodeURIComponent(name)}`,
      )
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.isBuffer(body) ? body : Buffer.from(body));

  const post = (session: SignedIn, path: string, body: object = {}) =>
    t
      .http()
      .post(`${API}${path}`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send(body);

  const get = (session: SignedIn, path: string) =>
    t.http().get(`${API}${path}`).set('Cookie', session.cookie);

  const MAPPING = { phone: 0, first_name: 1, last_name: 2, email: 3, company: 4 };

  it('uploads a CSV, suggests the mapping, previews it validated, and imports it in chunks of 10,000', async () => {
    const { user, session, campaignId } = await admin();
    const rows = 2 * SPREADSHEET_CHUNK_SIZE + 1_234;
    const { csv, invalid } = crmCsv(rows);

    const uploaded = await upload(session, campaignId, csv, 'C:\\exports\\crm.csv').expect(201);
    expect(uploaded.body).toMatchObject({
      campaign_id: campaignId,
      user: { id: user.id, email: user.email },
      file_name: 'crm.csv',
      format: 'csv',
      size_bytes: Buffer.byteLength(csv),
      total_rows: rows,
      headers: ['Mobile', 'First Name', 'Surname', 'E-mail', 'Company Name', 'Lead score'],
      suggested_mapping: MAPPING,
      status: 'uploaded',
      rows_read: 0,
    });
    expect(uploaded.body.sample_rows[0]).toEqual([
      '(415) 200-0000',
      'Ada0',
      'Lovelace',
      'ada0@example.com',
      'Engines; Ltd',
      '0',
    ]);
    const id: string = uploaded.body.id;
    const [{ parts }] = await t.db.query(
      'SELECT count(*)::int AS parts FROM spreadsheet_import_file_part WHERE import_id = $1',
      [id],
    );
    // Stored in parts of 1 MiB.
    expect(parts).toBe(Math.ceil(Buffer.byteLength(csv) / (1024 * 1024)));
    expect(parts).toBeGreaterThan(1);

    const preview = await post(session, `/spreadsheet-imports/${id}/preview`, {
      mapping: MAPPING,
    }).expect(200);
    expect(preview.body.rows).toHaveLength(10);
    expect(preview.body.rows[0]).toEqual({
      row: 2,
      lead: {
        phone: '+14152000000',
        email: 'ada0@example.com',
        first_name: 'Ada0',
        last_name: 'Lovelace',
        company: 'Engines; Ltd',
        title: null,
      },
      error: null,
    });

    const started = await post(session, `/spreadsheet-imports/${id}/start`, {
      mapping: MAPPING,
      compliance_acknowledged: true,
      disclaimer_version: 'v2.0',
      tags: ['spring'],
    }).expect(202);
    expect(started.body).toMatchObject({
      status: 'running',
      mapping: MAPPING,
      source: 'spreadsheet',
    });
    // A second click starts nothing.
    const again = await post(session, `/spreadsheet-imports/${id}/start`, {
      mapping: MAPPING,
      compliance_acknowledged: true,
    }).expect(200);
    expect(again.body.id).toBe(id);

    let done: Record<string, unknown> = {};
    await eventually(async () => {
      done = (await get(session, `/spreadsheet-imports/${id}`).expect(200)).body;
      expect(done.status).toBe('done');
    }, 60_000);
    expect(done).toMatchObject({
      rows_read: rows,
      chunks_imported: 3,
      valid_count: rows - invalid.length,
      invalid_count: invalid.length,
      duplicate_count: 0,
      disclaimer_version: 'v2.0',
      tags: ['spring'],
      error: null,
    });

    const chunks = await t.db.query(
      `SELECT chunk_index, first_row, api_key_id, user_id, received_count, valid_count, invalid_count,
              disclaimer_version, source, tags
         FROM lead_import WHERE spreadsheet_import_id = $1 ORDER BY chunk_index`,
      [id],
    );
    expect(
      chunks.map((c: { chunk_index: number; first_row: number; received_count: number }) => [
        c.chunk_index,
        c.first_row,
        c.received_count,
      ]),
    ).toEqual([
      [0, 2, 10_000],
      [1, 10_002, 10_000],
      [2, 20_002, 1_234],
    ]);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        api_key_id: null,
        user_id: user.id,
        disclaimer_version: 'v2.0',
        source: 'spreadsheet',
        tags: ['spring'],
      });
    }
    const [{ leads }] = await t.db.query(
      'SELECT count(*)::int AS leads FROM lead WHERE campaign_id = $1',
      [campaignId],
    );
    expect(leads).toBe(rows - invalid.length);
    const rejected = await t.db.query(
      `SELECT r.row FROM lead_import_rejection r JOIN lead_import i ON i.id = r.import_id
        WHERE i.spreadsheet_import_id = $1 ORDER BY r.row`,
      [id],
    );
    expect(rejected.map((r: { row: number }) => r.row)).toEqual(invalid);
    const [{ parts: left }] = await t.db.query(
      'SELECT count(*)::int AS parts FROM spreadsheet_import_file_part WHERE import_id = $1',
      [id],
    );
    expect(left).toBe(0);

    const file = await get(session, `/spreadsheet-imports/${id}/rejections.csv`).expect(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = file.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('row,field,message,phone,email,first_name,last_name,company,title');
    expect(lines).toHaveLength(invalid.length + 1);
    expect(lines[1]).toMatch(/^51,phone,/);

    const [audit] = await t.db.query(
      `SELECT action, object_type, object_id, details FROM audit_log_entry
        WHERE account_id = $1 AND action = 'import.start'`,
      [user.accountId],
    );
    expect(audit).toMatchObject({
      object_type: 'campaign',
      object_id: String(campaignId),
      details: { spreadsheet_import_id: id, file_name: 'crm.csv', total_rows: rows },
    });

    const list = await get(session, `/campaigns/${campaignId}/spreadsheet-imports`).expect(200);
    expect(list.body.map((j: { id: string }) => j.id)).toEqual([id]);
    const history = await get(session, `/campaigns/${campaignId}/imports`).expect(200);
    expect(history.body.items[0]).toMatchObject({
      api_key: null,
      user: { id: user.id },
      spreadsheet_import_id: id,
    });
  });

  it('reports a re-imported file as new leads 0, every valid row a duplicate skipped: rows read = new + duplicates + rejected', async () => {
    const { session, campaignId } = await admin();
    const rows = 120;
    const { csv, invalid } = crmCsv(rows, 500_000);
    /** Uploads and imports the file, and answers the import once done. */
    const importFile = async () => {
      const { id } = (await upload(session, campaignId, csv).expect(201)).body as { id: string };
      await post(session, `/spreadsheet-imports/${id}/start`, {
        mapping: MAPPING,
        compliance_acknowledged: true,
        disclaimer_version: 'v2.0',
      }).expect(202);
      let done: Record<string, unknown> = {};
      await eventually(async () => {
        done = (await get(session, `/spreadsheet-imports/${id}`).expect(200)).body;
        expect(done.status).toBe('done');
      }, 30_000);
      return { id, done };
    };
    const counts = (job: Record<string, unknown>) => ({
      rows_read: job.rows_read,
      new_count: job.new_count,
      duplicate_count: job.duplicate_count,
      invalid_count: job.invalid_count,
      valid_count: job.valid_count,
    });
    const valid = rows - invalid.length;

    const first = await importFile();
    expect(counts(first.done)).toEqual({
      rows_read: rows,
      new_count: valid,
      duplicate_count: 0,
      invalid_count: invalid.length,
      valid_count: valid,
    });
    const second = await importFile();
    // Nothing new: every valid row was a lead the campaign had. `valid_count` keeps counting them.
    expect(counts(second.done)).toEqual({
      rows_read: rows,
      new_count: 0,
      duplicate_count: valid,
      invalid_count: invalid.length,
      valid_count: valid,
    });
    const [{ leads }] = await t.db.query(
      'SELECT count(*)::int AS leads FROM lead WHERE campaign_id = $1',
      [campaignId],
    );
    expect(leads).toBe(valid);
    // The list says the same, and so does the chunk's import in the import history.
    const list = await get(session, `/campaigns/${campaignId}/spreadsheet-imports`).expect(200);
    expect(list.body.map(counts)).toEqual([counts(second.done), counts(first.done)]);
    const history = await get(session, `/campaigns/${campaignId}/imports`).expect(200);
    expect(
      history.body.items.map((i: Record<string, unknown>) => ({
        spreadsheet_import_id: i.spreadsheet_import_id,
        received_count: i.received_count,
        new_count: i.new_count,
        duplicate_count: i.duplicate_count,
        invalid_count: i.invalid_count,
      })),
    ).toEqual([
      {
        spreadsheet_import_id: second.id,
        received_count: rows,
        new_count: 0,
        duplicate_count: valid,
        invalid_count: invalid.length,
      },
      {
        spreadsheet_import_id: first.id,
        received_count: rows,
        new_count: valid,
        duplicate_count: 0,
        invalid_count: invalid.length,
      },
    ]);
  });

  it('resumes an import interrupted in the middle at its next chunk, importing no lead twice', async () => {
    const { session, campaignId } = await admin();
    const rows = 3 * SPREADSHEET_CHUNK_SIZE;
    const { csv, invalid } = crmCsv(rows, 500_000);
    const id: string = (await upload(session, campaignId, csv).expect(201)).body.id;
    await post(session, `/spreadsheet-imports/${id}/start`, {
      mapping: MAPPING,
      compliance_acknowledged: true,
    }).expect(202);
    // The worker dies after its first chunk: its lease passes to a worker that is gone …
    await eventually(async () => {
      const [row] = await t.db.query('SELECT next_chunk FROM spreadsheet_import WHERE id = $1', [
        id,
      ]);
      expect(row.next_chunk).toBeGreaterThanOrEqual(1);
    }, 60_000);
    await t.db.query(
      `UPDATE spreadsheet_import SET lease_owner = 'a worker that died', lease_expires_at = now() + interval '2 seconds'
        WHERE id = $1 AND status = 'running'`,
      [id],
    );
    // … and when that lease runs out, a worker takes the import where the last commit left it.
    await eventually(async () => {
      const [row] = await t.db.query('SELECT status FROM spreadsheet_import WHERE id = $1', [id]);
      expect(row.status).toBe('done');
    }, 60_000);
    const chunks = await t.db.query(
      'SELECT chunk_index, received_count FROM lead_import WHERE spreadsheet_import_id = $1 ORDER BY chunk_index',
      [id],
    );
    expect(chunks).toEqual(
      [0, 1, 2].map((chunk_index) => ({ chunk_index, received_count: 10_000 })),
    );
    const [counts] = await t.db.query(
      `SELECT count(*)::int AS leads, count(DISTINCT phone)::int AS phones FROM lead WHERE campaign_id = $1`,
      [campaignId],
    );
    expect(counts).toEqual({ leads: rows - invalid.length, phones: rows - invalid.length });
    const [job] = await t.db.query(
      'SELECT rows_read, valid_count, invalid_count FROM spreadsheet_import WHERE id = $1',
      [id],
    );
    expect(job).toEqual({
      rows_read: rows,
      valid_count: rows - invalid.length,
      invalid_count: invalid.length,
    });
  });

  it('cancels an import: what was committed stays, the rest is never imported, the file is deleted', async () => {
    const { user, session, campaignId } = await admin();
    const { csv } = crmCsv(4 * SPREADSHEET_CHUNK_SIZE, 900_000);
    const id: string = (await upload(session, campaignId, csv).expect(201)).body.id;
    await post(session, `/spreadsheet-imports/${id}/start`, {
      mapping: MAPPING,
      compliance_acknowledged: true,
    }).expect(202);
    const cancelled = await post(session, `/spreadsheet-imports/${id}/cancel`).expect(200);
    expect(cancelled.body.status).toBe('cancelled');
    // Wait for the worker to notice (its chunk under way is rolled back).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const [job] = await t.db.query(
      'SELECT status, next_chunk, rows_read FROM spreadsheet_import WHERE id = $1',
      [id],
    );
    expect(job.status).toBe('cancelled');
    const [{ chunks, received }] = await t.db.query(
      `SELECT count(*)::int AS chunks, coalesce(sum(received_count), 0)::int AS received
         FROM lead_import WHERE spreadsheet_import_id = $1`,
      [id],
    );
    expect({ chunks, received }).toEqual({ chunks: job.next_chunk, received: job.rows_read });
    expect(chunks).toBeLessThan(4);
    const [{ parts }] = await t.db.query(
      'SELECT count(*)::int AS parts FROM spreadsheet_import_file_part WHERE import_id = $1',
      [id],
    );
    expect(parts).toBe(0);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM audit_log_entry WHERE account_id = $1 AND action = 'import.cancel'`,
      [user.accountId],
    );
    expect(n).toBe(1);
    // Cancelling again changes nothing; a cancelled import cannot be started.
    await post(session, `/spreadsheet-imports/${id}/cancel`).expect(200);
    const restart = await post(session, `/spreadsheet-imports/${id}/start`, {
      mapping: MAPPING,
      compliance_acknowledged: true,
    }).expect(409);
    expect(restart.body).toEqual({
      error: 'conflict',
      message: 'the import is cancelled: upload the file again',
    });
  });

  it('imports the first worksheet of an XLSX workbook, phones typed as numbers included', async () => {
    const { session, campaignId } = await admin();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Contacts');
    sheet.addRow(['Phone Number', 'Given name', 'Email Address', 'Job Title']);
    sheet.addRow([4155550100, 'Ada', 'ada@example.com', 'CTO']);
    sheet.addRow(['+1 415 555 0101', 'Bo', 'not an email', '']);
    sheet.addRow([]);
    sheet.addRow(['(415) 555-0102', { richText: [{ text: 'C' }, { text: 'y' }] }, null, null]);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer());
    const uploaded = await upload(session, campaignId, xlsx, 'contacts.xlsx').expect(201);
    expect(uploaded.body).toMatchObject({
      format: 'xlsx',
      total_rows: 3,
      suggested_mapping: { phone: 0, first_name: 1, email: 2, title: 3 },
    });
    await post(session, `/spreadsheet-imports/${uploaded.body.id}/start`, {
      mapping: uploaded.body.suggested_mapping,
      compliance_acknowledged: true,
    }).expect(202);
    await eventually(async () => {
      const job = (await get(session, `/spreadsheet-imports/${uploaded.body.id}`)).body;
      expect(job).toMatchObject({ status: 'done', valid_count: 2, invalid_count: 1 });
    }, 30_000);
    const leads = await t.db.query(
      'SELECT phone, first_name, email, title FROM lead WHERE campaign_id = $1 ORDER BY phone',
      [campaignId],
    );
    expect(leads).toEqual([
      { phone: '+14155550100', first_name: 'Ada', email: 'ada@example.com', title: 'CTO' },
      { phone: '+14155550102', first_name: 'Cy', email: null, title: null },
    ]);
    const [rejection] = await t.db.query(
      `SELECT r.row, r.field FROM lead_import_rejection r JOIN lead_import i ON i.id = r.import_id
        WHERE i.spreadsheet_import_id = $1`,
      [uploaded.body.id],
    );
    expect(rejection).toEqual({ row: 3, field: 'email' });
  });

  it('refuses what it cannot import with a clear error, keeping nothing', async () => {
    const { session, campaignId } = await admin();
    const count = async () =>
      (
        await t.db.query(
          'SELECT count(*)::int AS n FROM spreadsheet_import WHERE campaign_id = $1',
          [campaignId],
        )
      )[0].n;
    const cases: Array<[Buffer | string, number, string]> = [
      ['', 422, 'file is empty'],
      ['Mobile,Name\r\n', 422, 'file has a header row but no data rows'],
      ['phone\n"+1415 unclosed\n', 422, 'file could not be read as CSV'],
      [
        Buffer.from('d0cf11e0a1b11ae100000000', 'hex'),
        422,
        'file is an Excel 97–2003 (.xls) workbook',
      ],
    ];
    for (const [body, status, message] of cases) {
      const res = await upload(session, campaignId, body).expect(status);
      expect(res.body).toEqual({
        error: 'validation_failed',
        message: expect.stringContaining(message),
      });
    }
    const wrongType = await t
      .http()
      .post(`${API}/campaigns/${campaignId}/spreadsheet-imports`)
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .set('Content-Type', 'text/csv')
      .send('phone\n+14155550100\n')
      .expect(415);
    expect(wrongType.body.error).toBe('unsupported_media_type');
    expect(await count()).toBe(0);

    const id: string = (
      await upload(session, campaignId, 'phone,email\n+14155550100,a@example.com\n').expect(201)
    ).body.id;
    const bad: Array<[object, number, string]> = [
      [{ mapping: { phone: 0 } }, 400, 'compliance_acknowledged must be true'],
      [
        { mapping: { email: 1 }, compliance_acknowledged: true },
        422,
        'mapping must map a column to phone',
      ],
      [
        { mapping: { phone: 2 }, compliance_acknowledged: true },
        422,
        'mapping.phone must be a column index from 0 to 1',
      ],
      [
        { mapping: { phone: 0, email: 0 }, compliance_acknowledged: true },
        422,
        'mapping uses column 0 for two fields',
      ],
      [{ mapping: { phone: 0 }, compliance_acknowledged: true, tags: 'x' }, 422, 'tags'],
    ];
    for (const [body, status, message] of bad) {
      const res = await post(session, `/spreadsheet-imports/${id}/start`, body).expect(status);
      expect(res.body.message).toContain(message);
    }
    const [job] = await t.db.query('SELECT status, mapping FROM spreadsheet_import WHERE id = $1', [
      id,
    ]);
    expect(job).toEqual({ status: 'uploaded', mapping: null });
    await get(session, '/spreadsheet-imports/not-a-uuid').expect(404);
    await get(session, '/spreadsheet-imports/00000000-0000-4000-8000-000000000000').expect(404);
  });
  it('refuses a file that is no spreadsheet, by its extension and its bytes, naming the accepted formats, and keeps nothing', async () => {
    const { session, campaignId } = await admin();
    const cases: Array<[string | Buffer, string, string]> = [
      ['hello world\n', 'notes.txt', 'file is a .txt file, not a spreadsheet'],
      ['phone\n+14155550100\n', 'leads.json', 'file is a .json file, not a spreadsheet'],
      ['phone\n+14155550100\n', 'leads.xlsx', 'file is named .xlsx but is not an Excel workbook'],
      [Buffer.from('PK\x03\x04rest', 'latin1'), 'leads.csv', 'file is a ZIP archive'],
    ];
    for (const [body, name, problem] of cases) {
      const res = await upload(session, campaignId, body, name).expect(422);
      expect(res.body).toEqual({
        error: 'validation_failed',
        message: `${problem}${problem.endsWith('archive') ? ', not a spreadsheet' : ''}: upload a CSV (.csv, .tsv) or Excel workbook (.xlsx)`,
      });
    }
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM spreadsheet_import WHERE campaign_id = $1',
      [campaignId],
    );
    expect(n).toBe(0);
  });

  it('refuses a CSV with no phone column as the CSV importer does, and takes one whose phone column has another name', async () => {
    const { session, campaignId } = await admin();
    const noPhone = 'Name,City\r\nAda,London\r\nBo,Paris\r\n';
    // The CSV importer (packages/client) refuses the same file for the same reason.
    expect(() => mapHeaders(['Name', 'City'])).toThrow(/^no phone column: none of "Name", "City"/);
    const refused = await upload(session, campaignId, noPhone, 'people.csv').expect(422);
    expect(refused.body).toEqual({
      error: 'validation_failed',
      message:
        'file has no phone column: none of "Name", "City" is a known phone header (Phone, Mobile, ' +
        'Phone Number, Cell, …) and no column holds a phone number in the first rows; name the ' +
        'column Phone and upload the file again',
    });
    const wide = ['Name', ...Array.from({ length: 7 }, (_, i) => `Column ${i} ${'x'.repeat(60)}`)];
    const many = await upload(
      session,
      campaignId,
      `${wide.join(',')}\r\n${wide.map(() => 'a').join(',')}\r\n`,
      'wide.csv',
    ).expect(422);
    expect(many.body.message).toContain(`"Column 3 ${'x'.repeat(31)}…" (and 3 more) is a known`);
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM spreadsheet_import WHERE campaign_id = $1',
      [campaignId],
    );
    expect(n).toBe(0);

    const named = await upload(
      session,
      campaignId,
      'Erreichbar unter,Vorname\r\n+1 415 555 0100,Ada\r\n',
      'nummern.csv',
    ).expect(201);
    expect(named.body).toMatchObject({ total_rows: 1 });
    expect(named.body.suggested_mapping.phone).toBeUndefined();
    const [stored] = await t.db.query('SELECT status FROM spreadsheet_import WHERE id = $1', [
      named.body.id,
    ]);
    expect(stored).toEqual({ status: 'uploaded' });
  });

  it('finds the uploads never started through their own index, never by scanning every import', async () => {
    const plan = await t.db.transaction(async (manager) => {
      // Only an index can avoid the (penalised) sequential scan; the plan names the one used.
      await manager.query('SET LOCAL enable_seqscan = off');
      const [row] = await manager.query(`EXPLAIN (FORMAT JSON) ${DELETE_UNSTARTED_SQL}`, [60_000]);
      return JSON.stringify(row['QUERY PLAN']);
    });
    expect(plan).toContain('"Index Name":"idx_spreadsheet_import_uploaded"');
    expect(plan).not.toContain('Seq Scan');
  });

  it('discards an upload never started after SPREADSHEET_UPLOAD_TTL with its file, and lets an admin discard one (audited)', async () => {
    const { user, session, campaignId } = await admin();
    const csv = 'phone,first_name\r\n+14155550100,Ada\r\n';
    const old = (await upload(session, campaignId, csv, 'old.csv').expect(201)).body;
    const fresh = (await upload(session, campaignId, csv, 'fresh.csv').expect(201)).body;
    // Uploaded 2 h and 1 min ago: past the TTL of this file's app (2h).
    await t.db.query(
      `UPDATE spreadsheet_import SET created_at = now() - interval '121 minutes' WHERE id = $1`,
      [old.id],
    );
    const read = (await get(session, `/spreadsheet-imports/${old.id}`).expect(200)).body;
    expect(Date.parse(read.discard_at) - Date.parse(read.created_at)).toBe(2 * 3600_000);
    const listed = (await get(session, `/campaigns/${campaignId}/spreadsheet-imports`).expect(200))
      .body as Array<{ id: string; discard_at: string | null }>;
    expect(listed.find((job) => job.id === fresh.id)?.discard_at).toBe(
      new Date(Date.parse(fresh.created_at) + 2 * 3600_000).toISOString(),
    );

    expect(await t.app.get(SpreadsheetImports).discardAbandoned()).toBe(1);
    const parts = async (id: string) =>
      (
        await t.db.query(
          'SELECT count(*)::int AS n FROM spreadsheet_import_file_part WHERE import_id = $1',
          [id],
        )
      )[0].n;
    expect(
      await t.db.query('SELECT id FROM spreadsheet_import WHERE campaign_id = $1', [campaignId]),
    ).toEqual([{ id: fresh.id }]);
    expect(await parts(old.id)).toBe(0);
    expect(await parts(fresh.id)).toBe(1);
    await get(session, `/spreadsheet-imports/${old.id}`).expect(404);

    // A viewer of the account may not discard it; another account's admin does not see it.
    const viewer = await signIn(t, await givenUser(t, 'viewer', user.accountId));
    const stranger = await signIn(t, await givenUser(t, 'admin'));
    const discard = (as: SignedIn, id: string) =>
      t
        .http()
        .delete(`${API}/spreadsheet-imports/${id}`)
        .set('Cookie', as.cookie)
        .set('X-CSRF-Token', as.csrf);
    expect((await discard(viewer, fresh.id).expect(403)).body.error).toBe('forbidden');
    expect((await discard(stranger, fresh.id).expect(404)).body.error).toBe('not_found');
    expect(await parts(fresh.id)).toBe(1);

    await discard(session, fresh.id).expect(204);
    expect(await parts(fresh.id)).toBe(0);
    expect(
      await t.db.query('SELECT id FROM spreadsheet_import WHERE campaign_id = $1', [campaignId]),
    ).toEqual([]);
    const entries = await t.db.query(
      `SELECT action, object_type, object_id, details FROM audit_log_entry
        WHERE account_id = $1 AND action = 'import.discard'`,
      [user.accountId],
    );
    expect(entries).toEqual([
      {
        action: 'import.discard',
        object_type: 'campaign',
        object_id: String(campaignId),
        details: { spreadsheet_import_id: fresh.id, file_name: 'fresh.csv', total_rows: 1 },
      },
    ]);
    await discard(session, fresh.id).expect(404);

    // A started import is not discarded: it is cancelled, or it ends.
    const started = (await upload(session, campaignId, csv, 'started.csv').expect(201)).body;
    await post(session, `/spreadsheet-imports/${started.id}/start`, {
      mapping: { phone: 0 },
      compliance_acknowledged: true,
    }).expect(202);
    const conflict = await discard(session, started.id).expect(409);
    expect(conflict.body).toEqual({
      error: 'conflict',
      message: expect.stringContaining('only an upload waiting for its mapping can be discarded'),
    });
    const startedRead = (await get(session, `/spreadsheet-imports/${started.id}`).expect(200)).body;
    expect(startedRead.discard_at).toBeNull();
  });

  it('keeps each list item small whatever the file: no headers, sample rows or suggestion in the list, only in the import', async () => {
    const { session, campaignId } = await admin();
    // Six small workbooks (about 15 KiB) of 200 columns whose headers are 1,000 characters each,
    // and 10 rows of 1,000-character cells: each import holds about 2 MiB of text.
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Hostile');
    sheet.addRow(Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(1000, 'x')));
    for (let r = 0; r < 10; r++) {
      sheet.addRow([
        '+14155550100',
        ...Array.from({ length: 199 }, (_, i) => `${i}`.padEnd(1000, 'y')),
      ]);
    }
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer({ zip: { compression: 'DEFLATE' } }));
    expect(xlsx.length).toBeLessThan(16 * 1024);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await upload(session, campaignId, xlsx, `hostile-${i}.xlsx`).expect(201)).body.id);
    }
    const list = await get(session, `/campaigns/${campaignId}/spreadsheet-imports`).expect(200);
    expect(list.text.length).toBeLessThanOrEqual(20 * 50 * 1024);
    const items = list.body as Array<Record<string, unknown>>;
    expect(items.map((item) => item.id)).toEqual([...ids].reverse());
    for (const item of items) {
      expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThanOrEqual(50 * 1024);
      expect(item).not.toHaveProperty('headers');
      expect(item).not.toHaveProperty('sample_rows');
      expect(item).not.toHaveProperty('suggested_mapping');
      expect(item).toMatchObject({ format: 'xlsx', total_rows: 10, status: 'uploaded' });
    }
    // The import's own page still has them.
    const one = (await get(session, `/spreadsheet-imports/${ids[0]}`).expect(200)).body;
    expect(one.headers).toHaveLength(200);
    expect(one.headers[1]).toBe('1'.padEnd(1000, 'x'));
    expect(one.sample_rows).toHaveLength(10);
  });
});
