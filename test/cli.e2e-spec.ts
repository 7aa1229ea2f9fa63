import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './support/env';

const run = promisify(execFile);
const CLI = join(__dirname, '..', 'dist', 'cli.js');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled operator CLI as an operator would (CONTRACT 7). */
async function cli(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, LOG_LEVEL: 'info' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function json(...args: string[]): Promise<Record<string, unknown>> {
  const result = await cli(...args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('Operator CLI (CONTRACT 7)', () => {
  let db: Client;
  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });
  afterAll(() => db.end());

  it('creates an account, a campaign and a key, each as one JSON document on stdout', async () => {
    const account = await json('account', 'create', '--name', 'Acme Corp');
    expect(account).toEqual({
      id: expect.any(Number),
      name: 'Acme Corp',
      created_at: expect.stringMatching(/Z$/),
    });

    const campaign = await json(
      'campaign',
      'create',
      '--account',
      String(account.id),
      '--name',
      'Spring',
      '--region',
      'gb',
    );
    expect(campaign).toMatchObject({
      account_id: account.id,
      name: 'Spring',
      default_region: 'GB',
    });
    const defaultRegion = await json(
      'campaign',
      'create',
      '--account',
      String(account.id),
      '--name',
      'Fall',
    );
    expect(defaultRegion.default_region).toBe('US');

    const key = await json(
      'api-key',
      'create',
      '--account',
      String(account.id),
      '--name',
      'ci',
      '--campaigns',
      String(campaign.id),
    );
    expect(key).toMatchObject({ account_id: account.id, name: 'ci', campaign_ids: [campaign.id] });
    expect(key.api_key).toMatch(/^capi_/);
    const { rows } = await db.query('SELECT key_hash, campaign_ids FROM api_key WHERE id = $1', [
      key.id,
    ]);
    expect(rows[0].key_hash).toBe(
      createHash('sha256')
        .update(key.api_key as string)
        .digest('hex'),
    );
    expect(rows[0].campaign_ids).toEqual([campaign.id]);
  });

  it('revokes a key and keeps the first revocation time', async () => {
    const account = await json('account', 'create', '--name', 'Revokers');
    const key = await json('api-key', 'create', '--account', String(account.id));
    const first = await json('api-key', 'revoke', '--id', String(key.id));
    expect(first).toEqual({ id: key.id, revoked_at: expect.stringMatching(/Z$/) });
    const again = await json('api-key', 'revoke', '--id', String(key.id));
    expect(again.revoked_at).toBe(first.revoked_at);
    const { rows } = await db.query('SELECT revoked_at FROM api_key WHERE id = $1', [key.id]);
    expect(rows[0].revoked_at.toISOString()).toBe(first.revoked_at);
  });

  it.each([
    [['account', 'create'], /--name/],
    [['account', 'create', '--name', '   '], /--name/],
    [
      ['campaign', 'create', '--account', 'abc', '--name', 'X'],
      /--account must be a positive integer/,
    ],
    [
      ['campaign', 'create', '--account', '2147480000', '--name', 'X'],
      /account 2147480000 does not exist/,
    ],
    [['campaign', 'create', '--account', '1', '--name', 'X', '--region', 'ZZ'], /--region/],
    [['api-key', 'create', '--account', '1', '--campaigns', '1,x'], /--campaigns/],
    [['api-key', 'revoke', '--id', '2147480000'], /does not exist/],
    [['account', 'create', '--name', 'A', '--bogus'], /unknown option/],
  ])('exits 1 with a one-line message and no stdout for %j', async (args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('refuses a campaign list naming another account’s campaign', async () => {
    const mine = await json('account', 'create', '--name', 'Mine');
    const theirs = await json('account', 'create', '--name', 'Theirs');
    const campaign = await json(
      'campaign',
      'create',
      '--account',
      String(theirs.id),
      '--name',
      'Theirs',
    );
    const result = await cli(
      'api-key',
      'create',
      '--account',
      String(mine.id),
      '--campaigns',
      String(campaign.id),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/every --campaigns id must be a campaign of account/);
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM api_key WHERE account_id = $1',
      [mine.id],
    );
    expect(rows[0].n).toBe(0);
  });
});
