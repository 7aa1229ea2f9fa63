/**
 * The privacy commands of the operator CLI (docs/cli.md#commands, docs/privacy.md): a person
 * added to, counted on and removed from an account's suppression list, a CSV imported with its
 * formula cells refused, an erasure with its receipt listed; each change audited without the
 * phone or the email.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './support/env';

const run = promisify(execFile);
// Each command boots a Node process (about a second, more on a busy machine).
jest.setTimeout(120_000);
const CLI = join(__dirname, '..', 'dist', 'cli.js');

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-privacy-cli` },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function json(...args: string[]): Promise<Record<string, unknown>> {
  const result = await cli(...args);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('Operator CLI: erasure and suppression (docs/cli.md#commands)', () => {
  let db: Client;
  let dir: string;
  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    dir = mkdtempSync(join(tmpdir(), 'suppression-'));
  });
  afterAll(async () => {
    await db.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds, counts, imports and removes suppression entries, erases with a receipt, and audits each without contact details', async () => {
    const account = String((await json('account', 'create', '--name', 'Privacy CLI')).id);
    expect(
      await json(
        'suppression',
        'add',
        '--account',
        account,
        '--phone',
        '(415) 555-0161',
        '--region',
        'us',
        '--email',
        'Dan@Example.com',
      ),
    ).toEqual({ added: 2 });
    const file = join(dir, 'list.csv');
    writeFileSync(
      file,
      'phone,email\n+14155550162,eve@example.com\n=HYPERLINK("x"),-2+3\n+1 415 555 0161,\n',
    );
    expect(await json('suppression', 'import', '--account', account, '--file', file)).toEqual({
      rows: 7,
      added: 2,
      already_listed: 1,
      invalid: 2,
      formula_cells: 2,
    });
    expect(await json('suppression', 'count', '--account', account)).toEqual({ entries: 4 });
    expect(
      await json('suppression', 'remove', '--account', account, '--email', 'dan@example.com'),
    ).toEqual({ removed: 1 });

    const receipt = await json(
      'erasure',
      'create',
      '--account',
      account,
      '--phone',
      '+1 415 555 0163',
      '--no-suppress',
    );
    expect(receipt).toMatchObject({
      requested_by: 'cli',
      suppressed: false,
      counts: { leads: 0, suppression_entries: 0 },
    });
    expect(await json('suppression', 'count', '--account', account)).toEqual({ entries: 3 });
    const listed = (await cli('erasure', 'list', '--account', account)).stdout;
    expect(JSON.parse(listed)).toEqual([receipt]);

    const refused = await cli('erasure', 'create', '--account', account, '--phone', '12');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/phone is not a valid international phone number/);

    const { rows } = await db.query(
      `SELECT action, details::text AS details FROM audit_log_entry WHERE account_id = $1 ORDER BY id`,
      [account],
    );
    expect(rows.map((r: { action: string }) => r.action)).toEqual([
      'account.create',
      'suppression.add',
      'suppression.import',
      'suppression.remove',
      'erasure.create',
    ]);
    for (const { details } of rows as Array<{ details: string }>) {
      expect(details).not.toMatch(/555|example\.com/i);
    }
  });
});
