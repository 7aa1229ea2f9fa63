import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyFingerprint, CampaignApiClient } from '../src';
import { EXIT, main } from '../src/import/cli';
import { chunkKey, importCsv, importPaths } from '../src/import/importer';
import { mapHeaders, parseMapFlags } from '../src/import/mapping';
import { escapeFormula } from '../src/import/rejected-file';
import { FakeServer, json } from './fake-server';

describe('header mapping', () => {
  it('recognises common names and ignores the rest', () => {
    expect(
      mapHeaders([
        'Mobile',
        'E-mail',
        'Given name',
        'Surname',
        'Company Name',
        'Job Title',
        'Notes',
      ]),
    ).toEqual({
      columns: { phone: 0, email: 1, first_name: 2, last_name: 3, company: 4, title: 5 },
      ignored: ['Notes'],
    });
    expect(mapHeaders(['first_name', 'PHONE NUMBER']).columns).toEqual({ first_name: 0, phone: 1 });
  });

  it('takes --map choices first; the first of two phone columns wins otherwise', () => {
    const map = parseMapFlags(['phone=Tel', 'email=Mail address']);
    expect(mapHeaders(['Phone', 'Tel', 'Mail address'], map)).toEqual({
      columns: { phone: 1, email: 2 },
      ignored: ['Phone'],
    });
    expect(mapHeaders(['Phone', 'Cell']).columns).toEqual({ phone: 0 });
  });

  it('refuses a file without a phone column and a --map to no column', () => {
    expect(() => mapHeaders(['Name', 'Email'])).toThrow(/no phone column.*--map phone=/);
    expect(() => mapHeaders(['Phone'], { email: 'Mail' })).toThrow(/no column "Mail"/);
    expect(() => parseMapFlags(['fax=Fax'])).toThrow(/field one of phone/);
    expect(() => parseMapFlags(['phone'])).toThrow(/expected field=Header/);
  });
});

describe('rejected-rows file', () => {
  it('quotes what a spreadsheet would run as a formula (OWASP)', () => {
    for (const value of ['=1+1', '+1 212', '-2', '@SUM(A1)', '\tx', '\rx']) {
      expect(escapeFormula(value)).toBe(`'${value}`);
    }
    expect(escapeFormula('Ada')).toBe('Ada');
    expect(escapeFormula('')).toBe('');
  });
});

describe('chunk keys', () => {
  it('depend on the chunk position and body only, within the API limit of 255 characters', () => {
    const key = chunkKey(0, '{"leads":[]}');
    expect(key).toBe(chunkKey(0, '{"leads":[]}'));
    expect(key).not.toBe(chunkKey(1, '{"leads":[]}'));
    expect(key).not.toBe(chunkKey(0, '{"leads":[{}]}'));
    expect(key.length).toBeLessThanOrEqual(255);
  });
});

describe('importCsv against a fake server', () => {
  const server = new FakeServer();
  let baseUrl: string;
  let dir: string;
  beforeAll(async () => {
    baseUrl = await server.start();
    dir = mkdtempSync(join(tmpdir(), 'importer-'));
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resends a chunk whose answer was lost under the same key, and resumes after a failure', async () => {
    const file = join(dir, 'leads.csv');
    writeFileSync(
      file,
      'Phone,Name\n+12123744203,Ada\n\n"bad, phone","Bob\nSmith"\n+12123744204,Cy\n',
    );
    const stored = new Map<string, unknown>();
    let lost = 0;
    let failNext = false;
    server.handler = (req, res) => {
      if (req.path.endsWith('/token')) {
        return json(res, 200, { access_token: 't', token_type: 'bearer', expires_in: 900 });
      }
      const key = req.headers['idempotency-key'] as string;
      const leads = (JSON.parse(req.body) as { leads: { phone: string }[] }).leads;
      if (failNext) return json(res, 403, { error: 'forbidden', message: 'no' });
      const report = stored.get(key) ?? {
        status: 'accepted',
        import_id: 'x',
        received_count: leads.length,
        valid_count: leads.filter((l) => l.phone.startsWith('+')).length,
        invalid_count: leads.filter((l) => !l.phone.startsWith('+')).length,
        duplicate_count: 0,
        errors: leads.flatMap((l, row) =>
          l.phone.startsWith('+')
            ? []
            : [{ row, var_field: 'phone', message: 'phone is not a valid phone number' }],
        ),
      };
      const replayed = stored.has(key);
      stored.set(key, report);
      if (lost++ === 0) return res.socket!.destroy(); // stored, but the answer is lost
      json(res, 202, report, replayed ? { 'idempotent-replayed': 'true' } : {});
    };
    const client = new CampaignApiClient({ baseUrl, apiKey: 'k', retry: { baseDelayMs: 1 } });

    // Chunks of two rows: the second chunk fails for good (403) after the first is stored.
    let chunks = 0;
    const failing = importCsv(client, {
      file,
      campaignId: 1,
      chunkSize: 2,
      onProgress: () => (failNext = ++chunks === 1),
    });
    await expect(failing).rejects.toMatchObject({ status: 403 });
    failNext = false;

    const notices: string[] = [];
    const summary = await importCsv(client, {
      file,
      campaignId: 1,
      chunkSize: 2,
      onNotice: (line) => notices.push(line),
    });
    expect(notices).toEqual([]);
    // Chunk 1 (Ada and the bad row) was finished by the first run: counted apart, not as
    // imported by this one; chunk 2 (Cy) is what this run sent.
    expect(summary).toMatchObject({
      rows: 3,
      chunks: 2,
      chunks_resumed: 1,
      rows_resumed: 2,
      imported: 1,
      rejected: 0,
      rejected_file: `${file}.rejected.csv`,
    });
    const uploads = server.received.filter((r) => r.path.endsWith('/upload'));
    // Chunk 1 twice (the lost answer, then its replay), chunk 2 refused, chunk 2 stored.
    expect(uploads.map((r) => r.headers['idempotency-key'])).toEqual([
      chunkKey(0, uploads[0].body),
      chunkKey(0, uploads[0].body),
      chunkKey(1, uploads[2].body),
      chunkKey(1, uploads[2].body),
    ]);
    expect(readFileSync(`${file}.rejected.csv`, 'utf8')).toBe(
      'line,field,message,Phone,Name\n4,phone,phone is not a valid phone number,"bad, phone","Bob\nSmith"\n',
    );
  });
});

describe('the resume state', () => {
  const first = new FakeServer();
  const second = new FakeServer();
  let urls: string[];
  let dir: string;
  const KEY = 'capi_resume-state-test-key-0123456789abcdefghij';
  beforeAll(async () => {
    urls = [await first.start(), await second.start()];
    dir = mkdtempSync(join(tmpdir(), 'importer-state-'));
    for (const server of [first, second]) {
      server.handler = (req, res) => {
        if (req.path.endsWith('/token')) {
          return json(res, 200, { access_token: 't', token_type: 'bearer', expires_in: 900 });
        }
        const { leads } = JSON.parse(req.body) as { leads: unknown[] };
        json(res, 202, {
          status: 'accepted',
          import_id: 'x',
          received_count: leads.length,
          valid_count: leads.length,
          invalid_count: 0,
          duplicate_count: 0,
          errors: [],
        });
      };
    }
  });
  afterAll(async () => {
    await Promise.all([first.stop(), second.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const uploads = (server: FakeServer) => server.to('/api/v1/leads/upload').length;

  async function importInto(baseUrl: string, file: string, apiKey = KEY, campaignId = 1) {
    const notices: string[] = [];
    const summary = await importCsv(new CampaignApiClient({ baseUrl, apiKey }), {
      file,
      campaignId,
      chunkSize: 1,
      onNotice: (line) => notices.push(line),
    });
    return { summary, notices };
  }

  it('records the service, a fingerprint of the key, the campaign and the file hash, never the key', async () => {
    const file = join(dir, 'bound.csv');
    writeFileSync(file, 'Phone\n+12123744203\n+12123744204\n');
    await importInto(`${urls[0]}/`, file);

    const bytes = readFileSync(importPaths(file).state);
    expect(bytes.includes(KEY)).toBe(false);
    expect(bytes.includes(KEY.slice('capi_'.length))).toBe(false);
    expect(JSON.parse(bytes.toString())).toMatchObject({
      version: 2,
      service: urls[0],
      key: apiKeyFingerprint(KEY),
      campaign_id: 1,
      file_sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
    });
    expect(apiKeyFingerprint(KEY)).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(apiKeyFingerprint(KEY)).not.toBe(apiKeyFingerprint(`${KEY}x`));
  });

  it('starts afresh against another service, sending every chunk, instead of skipping them', async () => {
    const file = join(dir, 'two-services.csv');
    writeFileSync(file, 'Phone\n+12123744203\n+12123744204\n');
    await importInto(urls[0], file);
    const before = uploads(second);

    const { summary, notices } = await importInto(urls[1], file);
    expect(notices).toEqual([
      `${importPaths(file).state}: the resume state is for another service (${urls[0]}): starting afresh`,
    ]);
    expect(uploads(second) - before).toBe(2);
    expect(summary).toMatchObject({ chunks: 2, chunks_resumed: 0, rows_resumed: 0, imported: 2 });
  });

  it('sets aside a state it cannot read, or of the older importer, with a notice', async () => {
    const file = join(dir, 'old.csv');
    writeFileSync(file, 'Phone\n+12123744203\n');
    const { state } = importPaths(file);
    const older = {
      version: 1,
      campaign_id: 1,
      completed: {
        [chunkKey(0, '{}')]: { index: 0, rows: 1, valid: 1, invalid: 0, duplicates: 0 },
      },
      rejected_bytes: 0,
    };
    for (const [text, why] of [
      [JSON.stringify(older), 'of an older importer'],
      ['{"version": 2, "compl', 'not readable JSON'],
    ]) {
      writeFileSync(state, text);
      const { summary, notices } = await importInto(urls[0], file);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toContain(why);
      expect(notices[0]).toMatch(/: starting afresh$/);
      expect(summary).toMatchObject({ chunks_resumed: 0, imported: 1 });
    }
  });

  it('resumes for the same service (however its URL is written), key, campaign and file', async () => {
    const file = join(dir, 'same.csv');
    writeFileSync(file, 'Phone\n+12123744203\n+12123744204\n');
    await importInto(urls[0], file);
    const before = uploads(first);

    const { summary, notices } = await importInto(`${urls[0].toUpperCase()}//`, file);
    expect(notices).toEqual([]);
    expect(uploads(first)).toBe(before);
    expect(summary).toMatchObject({ chunks: 2, chunks_resumed: 2, rows_resumed: 2, imported: 0 });
  });
});

describe('campaign-api-import when the service redirects elsewhere', () => {
  const service = new FakeServer();
  const elsewhere = new FakeServer();
  let serviceUrl: string;
  let elsewhereUrl: string;
  let dir: string;
  beforeAll(async () => {
    serviceUrl = await service.start();
    elsewhereUrl = await elsewhere.start();
    dir = mkdtempSync(join(tmpdir(), 'importer-redirect-'));
  });
  afterAll(async () => {
    await Promise.all([service.stop(), elsewhere.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the key nowhere else, stops with exit 1 and names the URL to pass as --base-url', async () => {
    const file = join(dir, 'leads.csv');
    writeFileSync(file, 'Phone\n+12123744203\n');
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, 'capi_secret-key-never-to-leave\n');
    service.handler = (req, res) => {
      res.writeHead(307, { location: `${elsewhereUrl}${req.path}` });
      res.end();
    };
    elsewhere.handler = (_req, res) => json(res, 200, { access_token: 'stolen', expires_in: 900 });
    const stderr: string[] = [];
    const write = jest
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: string | Uint8Array) => stderr.push(String(chunk)) > 0);
    let code: number;
    try {
      code = await main([
        file,
        '--campaign',
        '3',
        '--compliance-acknowledged',
        '--base-url',
        serviceUrl,
        '--api-key-file',
        keyFile,
      ]);
    } finally {
      write.mockRestore();
    }

    expect(code).toBe(EXIT.failed);
    expect(elsewhere.received).toEqual([]);
    expect(service.received.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/api/v1/auth/api-key/token'],
    ]);
    expect(stderr.join('')).toContain(
      `campaign-api-import: POST /api/v1/auth/api-key/token: the service at ${serviceUrl} ` +
        `redirected (307) to ${elsewhereUrl}/api/v1/auth/api-key/token, another origin; not ` +
        'followed, so that the API key and tokens are not sent there. If the service has moved ' +
        `there, use ${elsewhereUrl} as the service URL (--base-url ${elsewhereUrl})\n`,
    );
    expect(stderr.join('')).not.toContain('capi_secret-key-never-to-leave');
    // Nothing was uploaded, so nothing is recorded as done.
    expect(existsSync(importPaths(file).state)).toBe(false);
  });
});
