import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { verifyPassword } from '../src/users/passwords';
import { TEST_DATABASE_URL } from './support/env';
import { SESSION } from './support/dashboard';
import { startTestApp, type TestApp } from './support/test-app';

const CLI = join(__dirname, '..', 'dist', 'cli.js');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the compiled operator CLI (docs/cli.md), with `stdin` written to its standard input. */
function cli(args: string[], stdin = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-cli` },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function json(args: string[], stdin = ''): Promise<Record<string, unknown>> {
  const result = await cli(args, stdin);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

async function fails(args: string[], message: RegExp, stdin = ''): Promise<void> {
  const result = await cli(args, stdin);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(message);
}

describe('Operator CLI: dashboard users and the audit log (docs/cli.md#commands)', () => {
  let db: Client;
  let t: TestApp;
  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    t = await startTestApp({ RUN_WORKER: 'false' });
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  const signInStatus = async (email: string, password: string) =>
    (await t.http().post(SESSION).set('X-CSRF-Token', 'sign-in').send({ email, password })).status;
  const auditOf = async (accountId: number) =>
    (
      await db.query(
        `SELECT actor_type, actor_user_id, actor_email, ip, action, object_type, object_id, details,
                audit_log_entry::text AS raw
           FROM audit_log_entry WHERE account_id = $1 ORDER BY id`,
        [accountId],
      )
    ).rows as Array<Record<string, unknown>>;

  it('creates a user with a generated password, shown once and stored as argon2id', async () => {
    const account = await json(['account', 'create', '--name', 'Users Inc']);
    const created = await json([
      'user',
      'create',
      '--account',
      String(account.id),
      '--email',
      ' Ops@Users.example ',
      '--role',
      'admin',
    ]);
    expect(created).toEqual({
      id: expect.any(Number),
      account_id: account.id,
      email: 'Ops@Users.example',
      role: 'admin',
      created_at: expect.stringMatching(/Z$/),
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
    });
    const password = created.password as string;
    const { rows } = await db.query('SELECT * FROM dashboard_user WHERE id = $1', [created.id]);
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(rows[0].password_hash, password)).toBe(true);
    expect(JSON.stringify(rows[0])).not.toContain(password);
    expect(await signInStatus('ops@users.example', password)).toBe(200);

    const audit = await auditOf(account.id as number);
    expect(audit.map((entry) => entry.action)).toEqual([
      'account.create',
      'user.create',
      'session.sign_in',
    ]);
    expect(audit[1]).toMatchObject({
      actor_type: 'cli',
      actor_user_id: null,
      actor_email: null,
      ip: null,
      object_type: 'user',
      object_id: String(created.id),
      details: { email: 'Ops@Users.example', role: 'admin', password_generated: true },
    });
    for (const entry of audit) expect(entry.raw).not.toContain(password);
  });

  it('takes a password from stdin, never printing it; emails are unique whatever their case', async () => {
    const account = await json(['account', 'create', '--name', 'Stdin Ltd']);
    const password = 'typed by the operator 1';
    const created = await json(
      [
        'user',
        'create',
        '--account',
        String(account.id),
        '--email',
        'v@stdin.example',
        '--role',
        'viewer',
        '--password-stdin',
      ],
      `${password}\n`,
    );
    expect(Object.keys(created).sort()).toEqual([
      'account_id',
      'created_at',
      'email',
      'id',
      'role',
    ]);
    expect(await signInStatus('v@stdin.example', password)).toBe(200);
    await fails(
      [
        'user',
        'create',
        '--account',
        String(account.id),
        '--email',
        'V@STDIN.example',
        '--role',
        'admin',
      ],
      /^error: a dashboard user with email V@STDIN\.example exists already$/m,
    );
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM dashboard_user WHERE lower(email) = 'v@stdin.example'`,
    );
    expect(rows[0].n).toBe(1);
  });

  it.each([
    [['--email', 'x@y.example', '--role', 'owner'], /--role must be one of admin, viewer/, ''],
    [['--email', 'not-an-email', '--role', 'admin'], /--email must be a valid email address/, ''],
    [
      ['--email', 'short@y.example', '--role', 'admin', '--password-stdin'],
      /the password read with --password-stdin must be 12 to 1024 characters/,
      'too short\n',
    ],
    [
      ['--email', 'empty@y.example', '--role', 'admin', '--password-stdin'],
      /--password-stdin: no password on stdin/,
      '',
    ],
    [['--role', 'admin'], /--email/, ''],
  ])('refuses user create %j', async (args, message, stdin) => {
    const account = await json(['account', 'create', '--name', 'Refusals']);
    await fails(['user', 'create', '--account', String(account.id), ...args], message, stdin);
    const { rows } = await db.query(
      'SELECT count(*)::int AS n FROM dashboard_user WHERE account_id = $1',
      [account.id],
    );
    expect(rows[0].n).toBe(0);
  });

  it.each([
    [
      ['user', 'create', '--account', '2147480000', '--email', 'a@b.example', '--role', 'admin'],
      /account 2147480000 does not exist/,
    ],
    [['user', 'list', '--account', '2147480000'], /account 2147480000 does not exist/],
    [['user', 'disable', '--id', '2147480000'], /dashboard user 2147480000 does not exist/],
    [['user', 'reset-password', '--id', '2147480000'], /dashboard user 2147480000 does not exist/],
    [
      ['user', 'delete'],
      /unknown command "user delete"; use one of: create, list, disable, reset-password/,
    ],
  ])('refuses %j', async (args, message) => {
    await fails(args, message);
  });

  it('lists, disables and resets users, ending their sessions, never printing a hash', async () => {
    const account = await json(['account', 'create', '--name', 'Lifecycle']);
    const accountId = String(account.id);
    const first = await json([
      'user',
      'create',
      '--account',
      accountId,
      '--email',
      'one@life.example',
      '--role',
      'admin',
    ]);
    const second = await json([
      'user',
      'create',
      '--account',
      accountId,
      '--email',
      'two@life.example',
      '--role',
      'viewer',
    ]);

    const listed = await cli(['user', 'list', '--account', accountId]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      {
        id: first.id,
        account_id: account.id,
        email: 'one@life.example',
        role: 'admin',
        created_at: first.created_at,
        disabled_at: null,
        password_changed_at: first.created_at,
      },
      expect.objectContaining({ id: second.id, role: 'viewer', disabled_at: null }),
    ]);
    expect(listed.stdout).not.toContain('argon2');
    expect(listed.stdout).not.toContain(first.password as string);

    // reset-password: the old password and every session stop working.
    const signedIn = await t
      .http()
      .post(SESSION)
      .set('X-CSRF-Token', 'sign-in')
      .send({ email: 'one@life.example', password: first.password })
      .expect(200);
    const cookie = (signedIn.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const reset = await json(['user', 'reset-password', '--id', String(first.id)]);
    expect(reset).toEqual({
      id: first.id,
      password_changed_at: expect.stringMatching(/Z$/),
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
    });
    await t.http().get(SESSION).set('Cookie', cookie).expect(401);
    expect(await signInStatus('one@life.example', first.password as string)).toBe(401);
    expect(await signInStatus('one@life.example', reset.password as string)).toBe(200);
    const chosen = await json(
      ['user', 'reset-password', '--id', String(first.id), '--password-stdin'],
      'chosen by the operator\n',
    );
    expect(Object.keys(chosen).sort()).toEqual(['id', 'password_changed_at']);
    expect(await signInStatus('one@life.example', 'chosen by the operator')).toBe(200);

    // disable: sessions end, sign-in is refused, twice keeps the first time.
    const again = await t
      .http()
      .post(SESSION)
      .set('X-CSRF-Token', 'sign-in')
      .send({ email: 'one@life.example', password: 'chosen by the operator' })
      .expect(200);
    const cookie2 = (again.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const disabled = await json(['user', 'disable', '--id', String(first.id)]);
    expect(disabled).toEqual({ id: first.id, disabled_at: expect.stringMatching(/Z$/) });
    expect((await json(['user', 'disable', '--id', String(first.id)])).disabled_at).toBe(
      disabled.disabled_at,
    );
    await t.http().get(SESSION).set('Cookie', cookie2).expect(401);
    expect(await signInStatus('one@life.example', 'chosen by the operator')).toBe(401);
    const { rows } = await db.query(
      `SELECT end_reason FROM dashboard_session s JOIN dashboard_user u ON u.id = s.user_id
        WHERE u.id = $1 ORDER BY s.id`,
      [first.id],
    );
    expect(rows.map((row) => row.end_reason)).toEqual([
      'password_reset',
      'password_reset',
      'disabled',
      'disabled',
    ]);

    const audit = await auditOf(account.id as number);
    expect(
      audit
        .filter((entry) => entry.actor_type === 'cli')
        .map((entry) => [entry.action, entry.object_id, entry.details]),
    ).toEqual([
      ['account.create', String(account.id), { name: 'Lifecycle' }],
      [
        'user.create',
        String(first.id),
        { email: 'one@life.example', role: 'admin', password_generated: true },
      ],
      [
        'user.create',
        String(second.id),
        { email: 'two@life.example', role: 'viewer', password_generated: true },
      ],
      ['user.reset_password', String(first.id), { password_generated: true }],
      ['user.reset_password', String(first.id), { password_generated: false }],
      ['user.disable', String(first.id), {}],
      ['user.disable', String(first.id), {}],
    ]);
    for (const entry of audit) {
      for (const secret of [
        first.password,
        second.password,
        reset.password,
        'chosen by the operator',
      ]) {
        expect(entry.raw).not.toContain(secret as string);
      }
    }
  });

  it('records every change of the other commands in the audit log, as cli, without secrets', async () => {
    const account = await json(['account', 'create', '--name', 'Audited']);
    const accountId = String(account.id);
    const campaign = await json([
      'campaign',
      'create',
      '--account',
      accountId,
      '--name',
      'Spring',
      '--region',
      'GB',
    ]);
    const key = await json([
      'api-key',
      'create',
      '--account',
      accountId,
      '--name',
      'crm',
      '--campaigns',
      String(campaign.id),
    ]);
    await json(['api-key', 'revoke', '--id', String(key.id)]);
    const endpoint = await json([
      'endpoint',
      'create',
      '--campaign',
      String(campaign.id),
      '--url',
      'https://hooks.example.com/a',
      '--events',
      'lead.created',
    ]);
    await json([
      'endpoint',
      'update',
      '--id',
      String(endpoint.id),
      '--disable',
      '--description',
      'CRM',
    ]);
    const rotated = await json(['endpoint', 'rotate-secret', '--id', String(endpoint.id)]);
    await json(['endpoint', 'delete', '--id', String(endpoint.id)]);
    // Reads record nothing.
    await json(['api-key', 'list', '--account', accountId]);
    await json(['campaign', 'list', '--account', accountId]);

    const audit = await auditOf(account.id as number);
    expect(
      audit.map((entry) => [
        entry.actor_type,
        entry.ip,
        entry.action,
        entry.object_type,
        entry.object_id,
      ]),
    ).toEqual([
      ['cli', null, 'account.create', 'account', accountId],
      ['cli', null, 'campaign.create', 'campaign', String(campaign.id)],
      ['cli', null, 'api_key.create', 'api_key', String(key.id)],
      ['cli', null, 'api_key.revoke', 'api_key', String(key.id)],
      ['cli', null, 'endpoint.create', 'endpoint', String(endpoint.id)],
      ['cli', null, 'endpoint.update', 'endpoint', String(endpoint.id)],
      ['cli', null, 'secret.rotate', 'endpoint', String(endpoint.id)],
      ['cli', null, 'endpoint.delete', 'endpoint', String(endpoint.id)],
    ]);
    expect(audit.map((entry) => entry.details)).toEqual([
      { name: 'Audited' },
      { name: 'Spring', default_region: 'GB' },
      { name: 'crm', key_prefix: key.key_prefix, campaign_ids: [campaign.id] },
      {},
      {
        campaign_id: campaign.id,
        url: 'https://hooks.example.com/a',
        events: ['lead.created'],
        description: null,
        enabled: true,
      },
      { changes: { description: 'CRM', enabled: false } },
      {},
      { campaign_id: campaign.id },
    ]);
    const secrets = [key.api_key as string, endpoint.secret as string, rotated.secret as string];
    for (const entry of audit)
      for (const secret of secrets) expect(entry.raw).not.toContain(secret);
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM audit_log_entry WHERE account_id IS NULL AND actor_type = 'cli'`,
    );
    expect(rows[0].n).toBe(0);
  });

  it('lists the user group in --help', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('user');
    const group = await cli(['user', '--help']);
    expect(group.stdout).toMatch(/create[\s\S]*list[\s\S]*disable[\s\S]*reset-password/);
  });
});
