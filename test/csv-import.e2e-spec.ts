import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { fakeLeads } from '../scripts/fake-leads.mjs';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The CSV importer (packages/client, docs/client.md#the-csv-importer) as a user runs it: the
 * built `campaign-api-import` in its own process against the real service, on a 50,000-row
 * file with 300 bad rows, straight through and interrupted twice (Ctrl-C, then a kill) and
 * resumed. Timings go to stderr for the record (`npx jest test/csv-import`).
 */
const BIN = join(__dirname, '..', 'packages', 'client', 'bin', 'campaign-api-import.cjs');
const ROWS = 50_000;
const BAD = 300;
const HEADERS = [
  'Phone Number',
  'E-mail',
  'Given name',
  'Last Name',
  'Company Name',
  'Job Title',
  'Notes',
];

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

describe('campaign-api-import against the real service (50,000 rows)', () => {
  let t: TestApp;
  let baseUrl: string;
  let dir: string;
  let csv: Buffer;
  /** The file's rows as written, by line number (the header is line 1). */
  const lines = new Map<number, string[]>();

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKER: 'false' });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'csv-import-'));
    const leads = fakeLeads(ROWS, { seed: 13, invalidShare: BAD / ROWS });
    const rows = leads.map((lead, i) => [
      lead.phone ?? '',
      lead.email ?? '',
      lead.first_name ?? '',
      lead.last_name ?? '',
      lead.company ?? '',
      lead.title ?? '',
      i % 97 === 0 ? '=HYPERLINK("http://evil.example","click")' : `note ${i}`,
    ]);
    rows.forEach((row, i) => lines.set(i + 2, row));
    csv = Buffer.from(stringify([HEADERS, ...rows]));
  }, 120_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A campaign with a key of its own, and the CSV in a folder of its own. */
  async function given(name: string) {
    const accountId = await t.given.account();
    const campaignId = await t.given.campaign(accountId);
    const { key } = await t.given.apiKey(accountId);
    const file = join(dir, `${name}.csv`);
    writeFileSync(file, csv);
    return { campaignId, key, file };
  }

  /** Runs the importer; `stop` may signal it once its state shows `after` finished chunks. */
  function run(
    file: string,
    key: string,
    args: string[],
    stop?: { after: number; signal: NodeJS.Signals },
  ): Promise<Run> {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, file, '--base-url', baseUrl, ...args], {
      env: { ...process.env, CAMPAIGN_API_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let poll: NodeJS.Timeout | undefined;
    if (stop) {
      poll = setInterval(() => {
        if (finishedChunks(file) >= stop.after) {
          clearInterval(poll);
          child.kill(stop.signal);
        }
      }, 20);
    }
    return new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        clearInterval(poll);
        resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
      }),
    );
  }

  function finishedChunks(file: string): number {
    try {
      const state = JSON.parse(readFileSync(`${file}.import-state.json`, 'utf8')) as {
        completed: Record<string, unknown>;
      };
      return Object.keys(state.completed).length;
    } catch {
      return 0;
    }
  }

  async function leadsOf(campaignId: number): Promise<{ total: number; phones: number }> {
    const [row] = (await t.db.query(
      'SELECT count(*)::int AS total, count(DISTINCT phone)::int AS phones FROM lead WHERE campaign_id = $1',
      [campaignId],
    )) as { total: number; phones: number }[];
    return row;
  }

  async function importsOf(campaignId: number): Promise<number> {
    const [row] = (await t.db.query(
      'SELECT count(*)::int AS n FROM lead_import WHERE campaign_id = $1',
      [campaignId],
    )) as { n: number }[];
    return row.n;
  }

  /** The rejected-rows file: 300 rows, each its line's original cells, formulas quoted. */
  function expectRejectedFile(file: string): void {
    const records = parse(readFileSync(`${file}.rejected.csv`)) as string[][];
    expect(records[0]).toEqual(['line', 'field', 'message', ...HEADERS]);
    const rows = records.slice(1);
    expect(rows).toHaveLength(BAD);
    expect(new Set(rows.map((r) => r[0])).size).toBe(BAD);
    for (const [line, field, message, ...cells] of rows) {
      const original = lines.get(Number(line))!;
      expect(cells).toEqual(original.map((v) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v)));
      expect(['phone', 'email', 'first_name']).toContain(field);
      expect(message).toMatch(/^(phone|email|first_name) /);
    }
    expect(rows.some((r) => r[r.length - 1].startsWith(`'=HYPERLINK`))).toBe(true);
  }

  it('imports every valid row once, reports the 300 bad ones, and exits 3', async () => {
    const { campaignId, key, file } = await given('plain');
    const result = await run(file, key, [
      '--campaign',
      String(campaignId),
      '--compliance-acknowledged',
    ]);
    process.stderr.write(`csv-import: 50,000 rows in one run: ${result.ms} ms\n`);
    expect(result.stderr).toContain(
      'phone <- "Phone Number", email <- "E-mail", first_name <- "Given name"',
    );
    expect(result.stderr).toContain('ignored: Notes');
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({
      rows: ROWS,
      chunks: 5,
      chunks_resumed: 0,
      rows_resumed: 0,
      chunks_replayed: 0,
      imported: ROWS - BAD,
      duplicates: 0,
      rejected: BAD,
      rejected_file: `${file}.rejected.csv`,
    });
    expect(await leadsOf(campaignId)).toEqual({ total: ROWS - BAD, phones: ROWS - BAD });
    expectRejectedFile(file);

    // Run again: every chunk is known done; nothing is sent, so nothing is counted as
    // imported by this run; the rejected rows of the earlier run are still in their file.
    const again = await run(file, key, [
      '--campaign',
      String(campaignId),
      '--compliance-acknowledged',
    ]);
    expect(again.code).toBe(3);
    expect(JSON.parse(again.stdout)).toMatchObject({
      rows: ROWS,
      chunks_resumed: 5,
      rows_resumed: ROWS,
      imported: 0,
      duplicates: 0,
      rejected: 0,
      rejected_file: `${file}.rejected.csv`,
    });
    expect(await importsOf(campaignId)).toBe(5);
    expectRejectedFile(file);
  }, 300_000);

  it('is interrupted (Ctrl-C, then killed) and resumed without a duplicate', async () => {
    const { campaignId, key, file } = await given('interrupted');
    const args = [
      '--campaign',
      String(campaignId),
      '--compliance-acknowledged',
      '--chunk-size',
      '5000',
    ];

    const first = await run(file, key, args, { after: 3, signal: 'SIGINT' });
    expect(first.code).toBe(130);
    expect(first.stderr).toContain('interrupted');
    const afterFirst = finishedChunks(file);
    expect(afterFirst).toBeGreaterThanOrEqual(3);
    expect(afterFirst).toBeLessThan(10);

    const second = await run(file, key, args, { after: 6, signal: 'SIGKILL' });
    expect(second.signal).toBe('SIGKILL');
    const afterSecond = finishedChunks(file);
    expect(afterSecond).toBeLessThan(10);
    // What the chunks finished so far stored, by the service's answers.
    const earlier = Object.values(
      (
        JSON.parse(readFileSync(`${file}.import-state.json`, 'utf8')) as {
          completed: Record<
            string,
            { rows: number; valid: number; invalid: number; duplicates: number }
          >;
        }
      ).completed,
    ).reduce(
      (sum, c) => ({
        rows: sum.rows + c.rows,
        imported: sum.imported + c.valid - c.duplicates,
        rejected: sum.rejected + c.invalid,
      }),
      { rows: 0, imported: 0, rejected: 0 },
    );

    const last = await run(file, key, args);
    const total = first.ms + second.ms + last.ms;
    process.stderr.write(
      `csv-import: 50,000 rows interrupted at ${afterFirst} and ${afterSecond} of 10 chunks and resumed: ` +
        `${first.ms} + ${second.ms} + ${last.ms} = ${total} ms\n`,
    );
    expect(last.code).toBe(3);
    const summary = JSON.parse(last.stdout) as Record<string, number>;
    // The last run counts as imported only the chunks it sent; the resumed ones apart.
    expect(summary).toMatchObject({
      rows: ROWS,
      chunks: 10,
      chunks_resumed: afterSecond,
      rows_resumed: earlier.rows,
      imported: ROWS - BAD - earlier.imported,
      rejected: BAD - earlier.rejected,
      duplicates: 0,
    });
    expect(await leadsOf(campaignId)).toEqual({ total: ROWS - BAD, phones: ROWS - BAD });
    // One import per chunk: a chunk whose answer a kill lost was replayed, not stored again.
    expect(await importsOf(campaignId)).toBe(10);
    expectRejectedFile(file);
    expect(existsSync(`${file}.import-state.json`)).toBe(true);
  }, 300_000);
});
