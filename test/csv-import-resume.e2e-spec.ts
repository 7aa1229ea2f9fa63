import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { CampaignApiClient } from '../packages/client/src';
import { importCsv } from '../packages/client/src/import/importer';
import { fakeLeads } from '../scripts/fake-leads.mjs';
import { hashApiKey } from '../src/auth/api-key-format';
import { Client } from 'pg';
import { dropDatabase } from './support/databases';
import { freshDatabase, givenCampaign, runCli, ServiceProcess } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The CSV importer's resume state (docs/client.md#the-csv-importer) is bound to the service,
 * the API key, the campaign and the file's content: run the built `campaign-api-import`
 * against two real services (this process's app, and `dist/main.js` in a process of its own
 * on a database of its own), two keys, two campaigns and an
 * edited file, and check that each mismatch starts afresh with a notice, that the leads really
 * land, and that the summary counts as imported only what this run sent.
 */
const BIN = join(__dirname, '..', 'packages', 'client', 'bin', 'campaign-api-import.cjs');
/** 25 rows in chunks of 10: the 23rd row (in the third chunk) is the only bad one. */
const ROWS = 25;
const CHUNK = '10';
const BAD_ROW = 22;

/** A running service: where it listens, how to make a caller on it, and its database. */
interface Service {
  url: string;
  given: () => Promise<{ accountId: number; campaignId: number; key: string }>;
  query: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  summary: Record<string, unknown>;
}

const leadRows = (seed: number, count: number) =>
  fakeLeads(count, { seed, invalidShare: 0 }).map((lead) => [
    lead.phone ?? '',
    lead.email ?? '',
    lead.first_name ?? '',
  ]);

describe('campaign-api-import resume state across services, keys, campaigns and files', () => {
  let a: Service;
  let b: Service;
  let appA: TestApp;
  let processB: ServiceProcess | undefined;
  let databaseB: string;
  let dbB: Client | undefined;
  let dir: string;
  let fileNumber = 0;

  beforeAll(async () => {
    appA = await startTestApp({ RUN_WORKER: 'false' });
    await appA.app.listen(0, '127.0.0.1');
    const { port } = appA.app.getHttpServer().address() as AddressInfo;
    a = {
      url: `http://127.0.0.1:${port}`,
      given: async () => {
        const accountId = await appA.given.account();
        const campaignId = await appA.given.campaign(accountId);
        return { accountId, campaignId, key: (await appA.given.apiKey(accountId)).key };
      },
      query: (sql, params) => appA.db.query(sql, params),
    };

    // Another deployment: its own process (Passport's strategies are per process) and database.
    databaseB = await freshDatabase('import_b');
    const env = { DATABASE_URL: databaseB };
    processB = new ServiceProcess('main.js', {
      ...env,
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-b`,
      RUN_WORKER: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    const urlB = (await processB.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1];
    dbB = new Client({ connectionString: databaseB });
    await dbB.connect();
    b = {
      url: urlB,
      given: async () => {
        const { accountId, campaignId } = await givenCampaign(dbB!, 'Service B');
        const key = runCli(env, 'api-key', 'create', '--account', String(accountId)).api_key;
        return { accountId, campaignId, key: key as string };
      },
      query: async (sql, params) => (await dbB!.query(sql, params)).rows,
    };
    dir = mkdtempSync(join(tmpdir(), 'csv-import-resume-'));
  }, 120_000);
  afterAll(async () => {
    await appA?.close();
    await processB?.stop();
    await dbB?.end();
    await dropDatabase(databaseB);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new CSV of {@link ROWS} rows, one of them bad; returns its path. */
  function csvFile(seed: number): string {
    const rows = leadRows(seed, ROWS);
    rows[BAD_ROW] = ['not a phone', 'bad@example.com', 'Bad'];
    const file = join(dir, `leads-${++fileNumber}.csv`);
    writeFileSync(file, stringify([['Phone', 'Email', 'First name'], ...rows]));
    return file;
  }

  function run(file: string, service: Service, key: string, campaignId: number): Promise<Run> {
    const child = spawn(
      process.execPath,
      [
        BIN,
        file,
        '--base-url',
        service.url,
        '--campaign',
        String(campaignId),
        '--compliance-acknowledged',
        '--chunk-size',
        CHUNK,
      ],
      { env: { ...process.env, CAMPAIGN_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) =>
      child.on('exit', (code) => {
        let summary: Record<string, unknown> = {};
        try {
          summary = JSON.parse(stdout) as Record<string, unknown>;
        } catch {
          // no summary: the failure is in stderr, and the assertions below show it
        }
        resolve({ code, stdout, stderr, summary });
      }),
    );
  }

  /** The summary without this run's timings. */
  const counts = ({ elapsed_ms, rows_per_second, ...rest }: Record<string, unknown>) => {
    expect(typeof elapsed_ms).toBe('number');
    expect(typeof rows_per_second).toBe('number');
    return rest;
  };

  async function stored(
    service: Service,
    campaignId: number,
  ): Promise<{ leads: number; imports: number }> {
    const [row] = (await service.query(
      `SELECT (SELECT count(*)::int FROM lead WHERE campaign_id = $1) AS leads,
              (SELECT count(*)::int FROM lead_import WHERE campaign_id = $1) AS imports`,
      [campaignId],
    )) as { leads: number; imports: number }[];
    return row;
  }

  const notices = (stderr: string) =>
    stderr.split('\n').filter((line) => line.includes('starting afresh'));

  /** Every chunk sent by this run and stored by the service: 24 leads, one rejected row. */
  const sentEverything = (file: string, campaignId: number) => ({
    file,
    campaign_id: campaignId,
    rows: ROWS,
    chunks: 3,
    chunks_resumed: 0,
    rows_resumed: 0,
    chunks_replayed: 0,
    imported: ROWS - 1,
    duplicates: 0,
    rejected: 1,
    rejected_file: `${file}.rejected.csv`,
  });

  it('imports a file into service B afresh, with a notice, after it was imported into service A', async () => {
    const onA = await a.given();
    const onB = await b.given();
    // Two fresh deployments: the same campaign id names a different campaign on each.
    expect(onB.campaignId).toBe(onA.campaignId);
    const file = csvFile(101);

    const first = await run(file, a, onA.key, onA.campaignId);
    expect(first.code).toBe(3);
    expect(notices(first.stderr)).toEqual([]);
    expect(counts(first.summary)).toEqual(sentEverything(file, onA.campaignId));
    expect(await stored(a, onA.campaignId)).toEqual({ leads: ROWS - 1, imports: 3 });

    const second = await run(file, b, onB.key, onB.campaignId);
    expect(second.code).toBe(3);
    expect(notices(second.stderr)).toEqual([
      `${file}.import-state.json: the resume state is for another service (${a.url}) and ` +
        'API key: starting afresh',
    ]);
    expect(counts(second.summary)).toEqual(sentEverything(file, onB.campaignId));
    expect(await stored(b, onB.campaignId)).toEqual({ leads: ROWS - 1, imports: 3 });
    // A is untouched by the run against B.
    expect(await stored(a, onA.campaignId)).toEqual({ leads: ROWS - 1, imports: 3 });
  }, 60_000);

  it('starts afresh for another API key of the same account, and counts what the service answered', async () => {
    const first = await a.given();
    const { key: otherKey } = await appA.given.apiKey(first.accountId);
    const file = csvFile(202);
    expect((await run(file, a, first.key, first.campaignId)).code).toBe(3);

    const second = await run(file, a, otherKey, first.campaignId);
    expect(second.code).toBe(3);
    expect(notices(second.stderr)).toEqual([
      `${file}.import-state.json: the resume state is for another API key: starting afresh`,
    ]);
    // Idempotency keys belong to an API key: the service stores the chunks again and finds
    // every phone already in the campaign.
    expect(counts(second.summary)).toEqual({
      ...sentEverything(file, first.campaignId),
      imported: 0,
      duplicates: ROWS - 1,
    });
    expect(await stored(a, first.campaignId)).toEqual({ leads: ROWS - 1, imports: 6 });
  }, 60_000);

  it('starts afresh for another campaign instead of refusing or skipping', async () => {
    const first = await a.given();
    const otherCampaign = await appA.given.campaign(first.accountId);
    const file = csvFile(303);
    expect((await run(file, a, first.key, first.campaignId)).code).toBe(3);

    const second = await run(file, a, first.key, otherCampaign);
    expect(second.code).toBe(3);
    expect(notices(second.stderr)).toEqual([
      `${file}.import-state.json: the resume state is for another campaign ` +
        `(${first.campaignId}): starting afresh`,
    ]);
    expect(counts(second.summary)).toEqual(sentEverything(file, otherCampaign));
    expect(await stored(a, otherCampaign)).toEqual({ leads: ROWS - 1, imports: 3 });
  }, 60_000);

  it('starts afresh when the file under the same name was changed, the unchanged chunks replayed', async () => {
    const { campaignId, key } = await a.given();
    const file = csvFile(404);
    expect((await run(file, a, key, campaignId)).code).toBe(3);
    // One more row at the end: the third chunk changes, the first two do not.
    const extra = leadRows(405, 1)[0];
    writeFileSync(file, readFileSync(file, 'utf8') + stringify([extra]));

    const second = await run(file, a, key, campaignId);
    expect(second.code).toBe(3);
    expect(notices(second.stderr)).toEqual([
      `${file}.import-state.json: the resume state is for another file content: starting afresh`,
    ]);
    // Chunks 1 and 2 are answered from the service's idempotency record (stored by the first
    // run, as the service says); chunk 3 is new: its 5 good rows are duplicates, the extra
    // row is imported.
    expect(counts(second.summary)).toEqual({
      ...sentEverything(file, campaignId),
      rows: ROWS + 1,
      chunks_replayed: 2,
      imported: 2 * 10 + 1,
      duplicates: 4,
    });
    expect(await stored(a, campaignId)).toEqual({ leads: ROWS, imports: 4 });
    expect(readFileSync(`${file}.rejected.csv`, 'utf8').trim().split('\n')).toHaveLength(2);
  }, 60_000);

  it('never writes the API key (nor the hash the service keeps of it) into the state file', async () => {
    const { campaignId, key } = await a.given();
    const file = csvFile(505);
    expect((await run(file, a, key, campaignId)).code).toBe(3);

    const bytes = readFileSync(`${file}.import-state.json`);
    expect(bytes.includes(key)).toBe(false);
    expect(bytes.includes(key.slice('capi_'.length))).toBe(false);
    expect(bytes.includes(hashApiKey(key))).toBe(false);
    const state = JSON.parse(bytes.toString()) as Record<string, unknown>;
    expect(state).toMatchObject({
      version: 2,
      service: a.url,
      campaign_id: campaignId,
      file_sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
    });
    expect(state.key).toMatch(/^sha256:[0-9a-f]{16}$/);
  }, 60_000);

  it('resumes an interrupted import on the same service, key, campaign and file, counting resumed rows apart', async () => {
    const { campaignId, key } = await a.given();
    const file = csvFile(606);
    // Interrupted after the first chunk is stored.
    const controller = new AbortController();
    const client = new CampaignApiClient({ baseUrl: a.url, apiKey: key });
    await expect(
      importCsv(client, {
        file,
        campaignId,
        chunkSize: Number(CHUNK),
        signal: controller.signal,
        onProgress: () => controller.abort(new Error('interrupted')),
      }),
    ).rejects.toThrow('interrupted');
    expect(await stored(a, campaignId)).toEqual({ leads: 10, imports: 1 });

    const resumed = await run(file, a, key, campaignId);
    expect(resumed.code).toBe(3);
    expect(notices(resumed.stderr)).toEqual([]);
    expect(resumed.stderr).toContain('chunk 1 (done in an earlier run)');
    expect(resumed.stderr).toMatch(
      new RegExp(
        `^imported 14, duplicates 0, rejected 1 in \\d+s; 10 rows \\(1 chunk\\) done by an ` +
          `earlier run, not sent again; rejected rows are in ${file}\\.rejected\\.csv$`,
        'm',
      ),
    );
    expect(counts(resumed.summary)).toEqual({
      ...sentEverything(file, campaignId),
      chunks_resumed: 1,
      rows_resumed: 10,
      imported: ROWS - 1 - 10,
    });
    expect(await stored(a, campaignId)).toEqual({ leads: ROWS - 1, imports: 3 });

    // Once more: every chunk is resumed, nothing is sent, nothing is counted as imported.
    const again = await run(file, a, key, campaignId);
    expect(again.code).toBe(3);
    expect(counts(again.summary)).toEqual({
      ...sentEverything(file, campaignId),
      chunks_resumed: 3,
      rows_resumed: ROWS,
      imported: 0,
      rejected: 0,
    });
    expect(await stored(a, campaignId)).toEqual({ leads: ROWS - 1, imports: 3 });
  }, 60_000);
});
