import { execFile } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from './support/env';
import { verifyWebhook, WebhookReceiver } from './support/webhook-receiver';

const run = promisify(execFile);

// Each command starts a Node process that boots the CLI (about a second, several on a busy
// machine), and some tests run ten of them: a generous limit, not a timing assertion.
jest.setTimeout(180_000);
const CLI = join(__dirname, '..', 'dist', 'cli.js');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled operator CLI as an operator would (docs/cli.md). */
async function cli(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, LOG_LEVEL: 'info', QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-cli` },
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

/** Bad input: exit 1, nothing on stdout, one line on stderr matching `message`. */
async function expectOneLineFailure(args: string[], message: RegExp): Promise<void> {
  const result = await cli(...args);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(message);
}

describe('Operator CLI (docs/cli.md)', () => {
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

  it('prints its version, and help on stdout with exit 0', async () => {
    const version = await cli('--version');
    expect(version).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
    const help = await cli('--help');
    expect(help.code).toBe(0);
    // Every command, not only the groups, each on a line of its own with its summary.
    const commands = [
      ['account create', 'Create an account'],
      ['account list', 'List the accounts'],
      ['campaign create', 'Create a campaign of an account'],
      ['campaign list', 'List an account'],
      ['api-key create', 'Create an API key'],
      ['api-key list', 'List an account'],
      ['api-key revoke', 'Revoke an API key'],
      ['endpoint create', 'Create a webhook endpoint'],
      ['endpoint list', 'List a campaign'],
      ['endpoint update', 'Change a webhook endpoint'],
      ['endpoint delete', 'Delete a webhook endpoint'],
      ['endpoint rotate-secret', 'Replace the signing secret'],
      ['endpoint change-scheme', 'Switch to the other signature scheme'],
      ['endpoint ping', 'Send a signed test message now'],
      ['delivery list', 'List an endpoint'],
      ['delivery redeliver', 'Send a delivery again now'],
      ['event emit', 'Record and deliver an event'],
      ['user create', 'Create a dashboard user'],
      ['user list', 'List an account'],
      ['user disable', 'Disable a dashboard user'],
      ['user reset-password', 'Set a new password'],
    ];
    for (const [command, summary] of commands) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}( \\[options\\])? +${summary}`, 'm'));
    }
  });

  it('lists accounts, an account’s campaigns and its keys, never a key', async () => {
    const account = await json('account', 'create', '--name', 'Listers');
    const first = await json('campaign', 'create', '--account', String(account.id), '--name', 'A');
    const second = await json('campaign', 'create', '--account', String(account.id), '--name', 'B');
    const key = await json('api-key', 'create', '--account', String(account.id), '--name', 'k');
    await json('api-key', 'revoke', '--id', String(key.id));
    const revokedKey = await json('api-key', 'create', '--account', String(account.id));

    const accounts = (await json('account', 'list')) as unknown as Array<Record<string, unknown>>;
    expect(accounts).toContainEqual(account);
    const ids = accounts.map((a) => a.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    expect(await json('campaign', 'list', '--account', String(account.id))).toEqual([
      first,
      second,
    ]);

    const result = await cli('api-key', 'list', '--account', String(account.id));
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(key.api_key as string);
    expect(result.stdout).not.toContain(revokedKey.api_key as string);
    const { rows } = await db.query('SELECT key_hash FROM api_key WHERE account_id = $1', [
      account.id,
    ]);
    for (const row of rows) expect(result.stdout).not.toContain(row.key_hash);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        id: key.id,
        key_prefix: key.key_prefix,
        account_id: account.id,
        name: 'k',
        campaign_ids: null,
        created_at: key.created_at,
        revoked_at: expect.stringMatching(/Z$/),
        last_used_at: null,
      },
      {
        id: revokedKey.id,
        key_prefix: revokedKey.key_prefix,
        account_id: account.id,
        name: null,
        campaign_ids: null,
        created_at: revokedKey.created_at,
        revoked_at: null,
        last_used_at: null,
      },
    ]);
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
    [['account', 'delete'], /unknown command "account delete"; use one of: create, list/],
    [['account'], /account needs a sub-command: create, list/],
    [['accounts', 'list'], /unknown command "accounts"/],
    [['campaign', 'list', '--account', '2147480000'], /account 2147480000 does not exist/],
    [['api-key', 'list', '--account', '2147480000'], /account 2147480000 does not exist/],
    [['api-key', 'list'], /--account/],
  ])('exits 1 with a one-line message and no stdout for %j', async (args, message) => {
    await expectOneLineFailure(args, message);
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

describe('Operator CLI: webhook endpoints, deliveries and events (docs/cli.md)', () => {
  let db: Client;
  let receiver: WebhookReceiver;
  let campaignId: number;
  beforeAll(async () => {
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    receiver = await new WebhookReceiver().start();
    const account = await json('account', 'create', '--name', 'Hooks');
    campaignId = (
      await json('campaign', 'create', '--account', String(account.id), '--name', 'Hooks')
    ).id as number;
  });
  afterAll(async () => {
    await receiver.stop();
    await db.end();
  });

  /** `endpoint create` of the campaign to the receiver, subscribed to `events` (comma-separated). */
  const createEndpoint = (events: string, ...extra: string[]) =>
    json(
      'endpoint',
      'create',
      '--campaign',
      String(campaignId),
      '--url',
      receiver.url,
      '--events',
      events,
      ...extra,
    );
  /** `event emit` of `type` with `data` (JSON) in the campaign. */
  const emit = (type: string, data: string) =>
    json('event', 'emit', '--campaign', String(campaignId), '--type', type, '--data', data);

  it('creates, updates, pings, rotates and deletes an endpoint', async () => {
    const created = await createEndpoint('lead.created,call.completed', '--description', 'CRM');
    expect(created).toEqual({
      id: expect.any(Number),
      campaign_id: campaignId,
      url: receiver.url,
      description: 'CRM',
      subscribed_events: ['lead.created', 'call.completed'],
      is_enabled: true,
      created_at: expect.stringMatching(/Z$/),
      last_delivery_is_successful: null,
      signature_scheme: 'symmetric',
      ordering: 'none',
      max_deliveries_per_second: null,
      max_in_flight: null,
      custom_headers: [],
      auto_recover: false,
      recovery_probe: null,
      filter: null,
      secret: expect.stringMatching(/^whsec_/),
    });
    const id = String(created.id);

    const updated = await json(
      'endpoint',
      'update',
      '--id',
      id,
      '--events',
      'call.completed',
      '--disable',
    );
    expect(updated).toMatchObject({ subscribed_events: ['call.completed'], is_enabled: false });
    expect(updated).not.toHaveProperty('secret');
    const enabled = await json('endpoint', 'update', '--id', id, '--enable');
    expect(enabled).toMatchObject({ is_enabled: true });
    // Listed exactly as the API lists it, without the secret.
    const { secret: _secret, ...listedView } = { ...created, ...enabled };
    const listing = (await json('endpoint', 'list', '--campaign', String(campaignId))) as unknown;
    expect(listing).toContainEqual(listedView);
    expect(JSON.stringify(listing)).not.toContain(created.secret as string);

    const ping = await json('endpoint', 'ping', '--id', id);
    expect(ping).toMatchObject({
      success: true,
      status_code: 204,
      duration_ms: expect.any(Number),
      delivery_id: null,
    });
    expect(verifyWebhook(created.secret as string, receiver.received[0]).type).toBe('ping');

    const rotated = await json('endpoint', 'rotate-secret', '--id', id);
    expect(rotated).toEqual({ id: created.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.secret).not.toBe(created.secret);
    await json('endpoint', 'ping', '--id', id);
    verifyWebhook(rotated.secret as string, receiver.received[1]);
    verifyWebhook(created.secret as string, receiver.received[1]);

    const attempts = (await json(
      'delivery',
      'list',
      '--endpoint',
      id,
      '--limit',
      '1',
    )) as unknown as unknown[];
    expect(attempts).toHaveLength(1);
    const { rows } = await db.query(
      'SELECT total_deliveries, successful_deliveries FROM webhook_endpoint WHERE id = $1',
      [created.id],
    );
    expect(rows[0]).toEqual({ total_deliveries: 2, successful_deliveries: 2 });

    expect(await json('endpoint', 'delete', '--id', id)).toEqual({ id: created.id, deleted: true });
    const gone = await db.query('SELECT 1 FROM webhook_endpoint WHERE id = $1', [created.id]);
    expect(gone.rows).toHaveLength(0);
  });

  it('prints the throttle it sets, lists it, and names its own options when a limit is wrong', async () => {
    const created = await createEndpoint('lead.created', '--max-per-second', '5');
    expect(created).toMatchObject({
      signature_scheme: 'symmetric',
      max_deliveries_per_second: 5,
      max_in_flight: null,
    });
    const id = String(created.id);
    const updated = await json('endpoint', 'update', '--id', id, '--max-in-flight', '2');
    expect(updated).toMatchObject({ max_deliveries_per_second: 5, max_in_flight: 2 });
    const listing = (await json('endpoint', 'list', '--campaign', String(campaignId))) as unknown;
    expect(listing).toContainEqual(
      expect.objectContaining({ id: created.id, max_deliveries_per_second: 5, max_in_flight: 2 }),
    );

    await expectOneLineFailure(
      ['endpoint', 'update', '--id', id, '--max-per-second', '5000'],
      /^error: --max-per-second must be a whole number from 1 to 1,000, or "none" for no limit; got "5000"\n$/,
    );
    await expectOneLineFailure(
      ['endpoint', 'update', '--id', id, '--max-in-flight', '0'],
      /^error: --max-in-flight must be a whole number from 1 to 100, or "none" for no limit; got "0"\n$/,
    );
    await expectOneLineFailure(
      ['endpoint', 'update', '--id', id, '--max-in-flight', 'null'],
      /^error: --max-in-flight must be a whole number from 1 to 100, or "none" for no limit; got "null"\n$/,
    );
    const { rows } = await db.query(
      'SELECT max_deliveries_per_second, max_in_flight FROM webhook_endpoint WHERE id = $1',
      [created.id],
    );
    expect(rows[0]).toEqual({ max_deliveries_per_second: 5, max_in_flight: 2 });

    const cleared = await json(
      'endpoint',
      'update',
      '--id',
      id,
      '--max-per-second',
      'none',
      '--max-in-flight',
      'none',
    );
    expect(cleared).toMatchObject({ max_deliveries_per_second: null, max_in_flight: null });
    await json('endpoint', 'delete', '--id', id);
  });

  it('sets per-lead ordering with --ordering, lists it, and names the option when the value is wrong', async () => {
    const created = await createEndpoint('lead.created', '--ordering', 'per_lead');
    expect(created).toMatchObject({ ordering: 'per_lead' });
    const id = String(created.id);
    const listing = (await json('endpoint', 'list', '--campaign', String(campaignId))) as unknown;
    expect(listing).toContainEqual(
      expect.objectContaining({ id: created.id, ordering: 'per_lead' }),
    );
    await expectOneLineFailure(
      ['endpoint', 'update', '--id', id, '--ordering', 'by_lead'],
      /^error: --ordering must be one of none, per_lead, got "by_lead"\n$/,
    );
    const updated = await json('endpoint', 'update', '--id', id, '--ordering', 'none');
    expect(updated).toMatchObject({ ordering: 'none' });
    const { rows } = await db.query('SELECT ordering FROM webhook_endpoint WHERE id = $1', [
      created.id,
    ]);
    expect(rows[0]).toEqual({ ordering: 'none' });
    await json('endpoint', 'delete', '--id', id);
  });

  it('opts an endpoint in and out of coming back by itself with --auto-recover and --no-auto-recover, lists it and audits each change', async () => {
    const created = await createEndpoint('lead.created', '--auto-recover');
    expect(created).toMatchObject({ auto_recover: true, recovery_probe: null });
    const id = String(created.id);
    // Neither option: the setting stays as it is.
    expect(await json('endpoint', 'update', '--id', id, '--description', 'CRM')).toMatchObject({
      auto_recover: true,
    });
    expect(await json('endpoint', 'update', '--id', id, '--no-auto-recover')).toMatchObject({
      auto_recover: false,
    });
    const listing = (await json('endpoint', 'list', '--campaign', String(campaignId))) as unknown;
    expect(listing).toContainEqual(
      expect.objectContaining({ id: created.id, auto_recover: false, recovery_probe: null }),
    );
    const { rows } = await db.query('SELECT auto_recover FROM webhook_endpoint WHERE id = $1', [
      created.id,
    ]);
    expect(rows[0]).toEqual({ auto_recover: false });
    const audit = await db.query(
      `SELECT actor_type, action, details FROM audit_log_entry
        WHERE object_type = 'endpoint' AND object_id = $1 ORDER BY id`,
      [id],
    );
    expect(audit.rows.map((r: { action: string }) => r.action)).toEqual([
      'endpoint.create',
      'endpoint.update',
      'endpoint.update',
    ]);
    expect(audit.rows[0]).toMatchObject({ actor_type: 'cli', details: { auto_recover: true } });
    // The update that gave neither option changed nothing else.
    expect(audit.rows[1].details).toEqual({ changes: { description: 'CRM' } });
    expect(audit.rows[2]).toMatchObject({
      actor_type: 'cli',
      details: { changes: { auto_recover: false } },
    });
    await json('endpoint', 'delete', '--id', id);
  });

  it('sets a payload filter with --filter, lists it, refuses a wrong one naming its position, and removes it with --no-filter', async () => {
    const created = await createEndpoint(
      'call.completed',
      '--filter',
      'data.duration_seconds > 60',
    );
    expect(created).toMatchObject({ filter: 'data.duration_seconds > 60' });
    const id = String(created.id);
    const listing = (await json('endpoint', 'list', '--campaign', String(campaignId))) as unknown;
    expect(listing).toContainEqual(
      expect.objectContaining({ id: created.id, filter: 'data.duration_seconds > 60' }),
    );

    // An event the filter does not match is not recorded for it (no other endpoint takes it).
    const call = (seconds: number) =>
      JSON.stringify({
        call_id: `CA${seconds}`,
        lead_id: null,
        campaign_id: campaignId,
        phone: '+12125550143',
        duration_seconds: seconds,
        outcome: 'answered',
        completed_at: '2026-11-29T10:00:00.000Z',
      });
    expect(await emit('call.completed', call(30))).toMatchObject({
      recorded: false,
      deliveries: 0,
      filtered: 1,
    });
    expect(await emit('call.completed', call(90))).toMatchObject({
      recorded: true,
      deliveries: 1,
      filtered: 0,
    });

    await expectOneLineFailure(
      ['endpoint', 'update', '--id', id, '--filter', 'data.duration_secs > 60'],
      /^error: --filter has an error at line 1, column 6 \(for call\.completed events\): No such key: duration_secs\n$/,
    );
    const { rows } = await db.query('SELECT filter FROM webhook_endpoint WHERE id = $1', [
      created.id,
    ]);
    expect(rows[0]).toEqual({ filter: 'data.duration_seconds > 60' });

    expect(await json('endpoint', 'update', '--id', id, '--no-filter')).toMatchObject({
      filter: null,
    });
    expect(
      await json('endpoint', 'update', '--id', id, '--filter', 'data.outcome == "answered"'),
    ).toMatchObject({ filter: 'data.outcome == "answered"' });
    expect(await json('endpoint', 'update', '--id', id, '--filter', '')).toMatchObject({
      filter: null,
    });
    await json('endpoint', 'delete', '--id', id);
  });

  it('creates an asymmetric endpoint, rotates its key pair and switches its scheme, printing public keys and never a secret key', async () => {
    const created = await createEndpoint('lead.created', '--signature-scheme', 'asymmetric');
    const id = String(created.id);
    expect(created).toMatchObject({
      signature_scheme: 'asymmetric',
      public_key: expect.stringMatching(/^whpk_[A-Za-z0-9+/]{43}=$/),
    });
    expect(created).not.toHaveProperty('secret');
    const pinged = receiver.received.length;
    await json('endpoint', 'ping', '--id', id);
    const [ping] = (await receiver.waitFor(pinged + 1)).slice(pinged);
    const raw = Buffer.from(String(created.public_key).slice(5), 'base64');
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
      format: 'jwk',
    });
    const signature = String(ping.headers['webhook-signature']);
    expect(signature).toMatch(/^v1a,/);
    const content = `${String(ping.headers['webhook-id'])}.${String(ping.headers['webhook-timestamp'])}.${ping.body}`;
    expect(verify(null, Buffer.from(content), key, Buffer.from(signature.slice(4), 'base64'))).toBe(
      true,
    );

    const rotated = await json('endpoint', 'rotate-secret', '--id', id);
    expect(rotated).toEqual({ id: created.id, public_key: expect.stringMatching(/^whpk_/) });
    expect(rotated.public_key).not.toBe(created.public_key);
    await expectOneLineFailure(
      ['endpoint', 'change-scheme', '--id', id, '--signature-scheme', 'asymmetric'],
      /^error: webhook endpoint \d+ already uses the asymmetric signature scheme/,
    );
    await expectOneLineFailure(
      ['endpoint', 'change-scheme', '--id', id, '--signature-scheme', 'rsa'],
      /^error: --signature-scheme must be one of symmetric, asymmetric, got "rsa"/,
    );
    const changed = await json(
      'endpoint',
      'change-scheme',
      '--id',
      id,
      '--signature-scheme',
      'symmetric',
    );
    expect(changed).toEqual({
      id: created.id,
      signature_scheme: 'symmetric',
      secret: expect.stringMatching(/^whsec_/),
      previous_secret_expires_at: expect.stringMatching(/Z$/),
    });
    const { rows } = await db.query(
      `SELECT action, details FROM audit_log_entry
        WHERE object_type = 'endpoint' AND object_id = $1 ORDER BY id`,
      [id],
    );
    expect(rows.map((row: { action: string }) => row.action)).toEqual([
      'endpoint.create',
      'secret.rotate',
      'secret.change_scheme',
    ]);
    expect(JSON.stringify(rows)).not.toContain('whsk_');
    expect(await json('endpoint', 'delete', '--id', id)).toEqual({ id: created.id, deleted: true });
  });

  it('emits an event, lists its delivery attempt and redelivers it with the same webhook-id', async () => {
    const endpoint = await createEndpoint('call.completed');
    const before = receiver.received.length;
    const event = await emit('call.completed', '{"call_id": 7}');
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'call.completed',
      campaign_id: campaignId,
      created_at: expect.stringMatching(/Z$/),
      recorded: true,
      deliveries: 1,
      skipped: 0,
      filtered: 0,
    });
    const { rows } = await db.query('SELECT id FROM webhook_delivery WHERE event_id = $1', [
      event.id,
    ]);
    expect(rows).toHaveLength(1);

    // No worker runs in this test: the CLI queued the delivery; redeliver sends it now.
    const attempt = await json('delivery', 'redeliver', '--id', String(rows[0].id));
    expect(attempt).toMatchObject({
      success: true,
      status_code: 204,
      delivery_id: Number(rows[0].id),
      webhook_id: event.id,
      event_type: 'call.completed',
    });
    const received = receiver.received[before];
    expect(received.headers['webhook-id']).toBe(event.id);
    expect(verifyWebhook(endpoint.secret as string, received)).toMatchObject({
      type: 'call.completed',
      data: { call_id: 7 },
    });

    const listed = (await json(
      'delivery',
      'list',
      '--endpoint',
      String(endpoint.id),
    )) as unknown as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({
      delivery_id: Number(rows[0].id),
      event_type: 'call.completed',
      success: true,
    });
    const [delivery] = (
      await db.query('SELECT status, attempt_count FROM webhook_delivery WHERE id = $1', [
        rows[0].id,
      ])
    ).rows;
    expect(delivery).toEqual({ status: 'succeeded', attempt_count: 1 });
  });

  it('does not record an event no endpoint subscribes to', async () => {
    const event = await emit('form.submitted', '{}');
    expect(event).toMatchObject({ id: null, recorded: false, deliveries: 0, skipped: 0 });
  });

  it('sets custom headers with --header and --secret-header, sends them, and masks the secret one', async () => {
    const token = 'Bearer cli-token-0123456789abcdef';
    const created = await createEndpoint(
      'lead.created',
      '--header',
      'X-Tenant: acme',
      '--secret-header',
      `Authorization: ${token}`,
    );
    expect(created.custom_headers).toEqual([
      { name: 'X-Tenant', secret: false, value: 'acme', masked_value: null },
      { name: 'Authorization', secret: true, value: token, masked_value: '••••cdef' },
    ]);
    const id = String(created.id);
    const { rows } = await db.query(
      'SELECT custom_headers::text AS stored FROM webhook_endpoint WHERE id = $1',
      [created.id],
    );
    expect(rows[0].stored).not.toContain('cli-token');

    const listing = (await json('endpoint', 'list', '--campaign', String(campaignId))) as unknown;
    expect(JSON.stringify(listing)).not.toContain('cli-token');

    // A secret header named without a value keeps its value; the plain one is replaced.
    const updated = await json(
      'endpoint',
      'update',
      '--id',
      id,
      '--header',
      'X-Tenant: globex',
      '--secret-header',
      'Authorization',
    );
    expect(updated.custom_headers).toEqual([
      { name: 'X-Tenant', secret: false, value: 'globex', masked_value: null },
      { name: 'Authorization', secret: true, value: null, masked_value: '••••cdef' },
    ]);
    const before = receiver.received.length;
    await json('endpoint', 'ping', '--id', id);
    const got = receiver.received[before];
    expect(got.headers['x-tenant']).toBe('globex');
    expect(got.headers.authorization).toBe(token);

    await expectOneLineFailure(
      ['endpoint', 'update', '--id', id, '--header', 'Connection: close'],
      /^error: --header "Connection" cannot be set: hop-by-hop headers apply to one connection only$/m,
    );
    await expectOneLineFailure(
      ['endpoint', 'update', '--id', id, '--header', 'no colon'],
      /^error: --header must be "Name: value", got "no colon"$/m,
    );
    expect(
      (await json('endpoint', 'update', '--id', id, '--clear-headers')).custom_headers,
    ).toEqual([]);
    await json('endpoint', 'delete', '--id', id);
  });

  it('records an event only a disabled endpoint subscribes to, as a skipped delivery', async () => {
    const endpoint = await createEndpoint('form.submitted', '--disabled');
    const before = receiver.received.length;
    const event = await emit('form.submitted', '{"form": 1}');
    expect(event).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      recorded: true,
      deliveries: 0,
      skipped: 1,
    });
    const { rows } = await db.query(
      'SELECT endpoint_id, status, attempt_count, next_attempt_at FROM webhook_delivery WHERE event_id = $1',
      [event.id],
    );
    expect(rows).toEqual([
      { endpoint_id: endpoint.id, status: 'skipped', attempt_count: 0, next_attempt_at: null },
    ]);
    expect(receiver.received.length).toBe(before);
    await json('endpoint', 'delete', '--id', String(endpoint.id));
  });

  it.each([
    [
      [
        'endpoint',
        'create',
        '--campaign',
        '1',
        '--url',
        'ftp://example.com',
        '--events',
        'lead.created',
      ],
      /http or https/,
    ],
    [
      [
        'endpoint',
        'create',
        '--campaign',
        '1',
        '--url',
        'https://example.com',
        '--events',
        'lead.nope',
      ],
      /unknown event types: lead.nope/,
    ],
    [
      [
        'endpoint',
        'create',
        '--campaign',
        '2147480000',
        '--url',
        'https://example.com',
        '--events',
        'lead.created',
      ],
      /campaign 2147480000 does not exist/,
    ],
    [['endpoint', 'update', '--id', '2147480000', '--enable'], /does not exist/],
    [['endpoint', 'update', '--id', '1'], /nothing to change/],
    [['endpoint', 'ping', '--id', '2147480000'], /does not exist/],
    [['delivery', 'redeliver', '--id', '999999999'], /does not exist/],
    [
      ['delivery', 'list', '--endpoint', '2147480000'],
      /webhook endpoint 2147480000 does not exist/,
    ],
    [['endpoint', 'list', '--campaign', '2147480000'], /campaign 2147480000 does not exist/],
    [['event', 'emit', '--campaign', '1', '--type', 'lead.nope'], /--type must be one of/],
    [
      ['event', 'emit', '--campaign', '1', '--type', 'lead.created', '--data', '[1]'],
      /--data must be a JSON object/,
    ],
  ])('exits 1 with one line for %j', async (args, message) => {
    await expectOneLineFailure(args, message);
  });
});
