/**
 * The operator CLI's `portal` commands (docs/cli.md#commands): portal origins set and listed,
 * a link minted (its secret only in the URL's fragment, stored only as a hash) and revoked,
 * each recorded by `cli`.
 */
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { cli, cliJson as json } from './support/cli';
import { TEST_DATABASE_URL } from './support/env';

// Each command boots the CLI in a Node process of its own: a generous limit, not a timing check.
jest.setTimeout(180_000);

describe('Operator CLI: portal (docs/cli.md#commands)', () => {
  let db: Client;
  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });
  afterAll(() => db.end());

  it('sets the portal origins, mints a link for them and revokes it, each recorded by cli', async () => {
    const account = await json('account', 'create', '--name', 'Portal CLI');
    const campaign = await json(
      'campaign',
      'create',
      '--account',
      String(account.id),
      '--name',
      'P',
    );
    const origins = await json(
      'portal',
      'origins-set',
      '--account',
      String(account.id),
      '--origins',
      'https://App.Example.com, http://127.0.0.2:8080',
    );
    expect(origins).toEqual({
      account_id: account.id,
      origins: ['https://app.example.com', 'http://127.0.0.2:8080'],
    });
    expect(await json('portal', 'origins-list', '--account', String(account.id))).toEqual(origins);

    const link = await json(
      'portal',
      'create',
      '--account',
      String(account.id),
      '--base-url',
      'https://campaigns.example.com',
      '--campaigns',
      String(campaign.id),
      '--role',
      'viewer',
      '--expires-in',
      '300',
      '--subject-id',
      'user_7',
      '--parent-origin',
      'https://app.example.com',
    );
    const url = new URL(link.url as string);
    expect(url.origin).toBe('https://campaigns.example.com');
    expect(url.pathname).toBe(`/portal/${link.id as string}`);
    expect(url.search).toBe('');
    const secret = url.hash.slice(1);
    expect(secret).toMatch(/^cpl_/);
    const { rows } = await db.query(
      'SELECT secret_hash, campaign_ids, role, key_prefix, parent_origin FROM portal_link WHERE id = $1',
      [link.id],
    );
    expect(rows[0]).toEqual({
      secret_hash: createHash('sha256').update(secret).digest('hex'),
      campaign_ids: [campaign.id],
      role: 'viewer',
      key_prefix: null,
      parent_origin: 'https://app.example.com',
    });

    expect(await json('portal', 'revoke', '--id', String(link.id))).toEqual({
      id: link.id,
      revoked: true,
    });
    const audit = await db.query(
      `SELECT action, actor_type FROM audit_log_entry WHERE account_id = $1 AND action LIKE ANY ($2)
        ORDER BY id`,
      [account.id, ['portal%', 'account.portal%']],
    );
    expect(audit.rows).toEqual([
      { action: 'account.portal_origins_update', actor_type: 'cli' },
      { action: 'portal_link.create', actor_type: 'cli' },
      { action: 'portal_link.revoke', actor_type: 'cli' },
    ]);
  });

  it('refuses an http origin that is not loopback, and a link for an unregistered parent, with one line', async () => {
    const account = await json('account', 'create', '--name', 'Portal CLI 2');
    const bad = await cli(
      'portal',
      'origins-set',
      '--account',
      String(account.id),
      '--origins',
      'http://app.example.com',
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/must use https/);
    const noOrigin = await cli(
      'portal',
      'create',
      '--account',
      String(account.id),
      '--base-url',
      'https://campaigns.example.com',
      '--role',
      'admin',
      '--expires-in',
      '60',
      '--subject-id',
      'u',
    );
    expect(noOrigin.code).toBe(1);
    expect(noOrigin.stderr).toMatch(/no portal origins/);
    const { rows } = await db.query('SELECT 1 FROM portal_link WHERE account_id = $1', [
      account.id,
    ]);
    expect(rows).toHaveLength(0);
  });
});
