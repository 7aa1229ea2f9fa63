/**
 * Per-endpoint transformations, end to end (docs/webhooks.md#transformations): saving through
 * the dashboard (the check on save, the 64 KiB cap, admins only), versions, restore and clear
 * with their audit entries, trial runs that send and write nothing, and what deliveries become:
 * a changed method, URL, headers and string body reach the receiver signed; `null` skips the
 * delivery; a throw fails it at once (recovered with the scope `transformation_errors` once the
 * code is fixed); a forged `webhook-signature` is refused; test events are transformed, pings
 * are not. Also the operator CLI's `endpoint set-transformation` (docs/cli.md#commands).
 */
import { execFile } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { givenUser, signIn, type GivenUser, type SignedIn } from './support/dashboard';
import { eventually, sleep } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';

const API = '/dashboard/api';
const CLI = join(__dirname, '..', 'dist', 'cli.js');
const SECRET_TOKEN = 'Bearer crm-token-0123456789abcdef';
const run = promisify(execFile);

/** One request a {@link Receiver} got, with its method and path (which WebhookReceiver drops). */
interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver recording every request on any path; answers 204. */
class Receiver {
  readonly received: Received[] = [];
  private server?: Server;

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

/**
 * Checks a Standard Webhooks `v1` signature over the exact body received, whatever its type
 * (the `standardwebhooks` package parses the body as JSON, which a string payload is not).
 */
function signatureVerifies(secret: string, request: Received): boolean {
  const id = String(request.headers['webhook-id']);
  const timestamp = String(request.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [version, value] = sig.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return (
        version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)
      );
    });
}

describe('Transformations (docs/webhooks.md#transformations)', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    for (const r of receivers) await r.stop();
  });

  interface Customer {
    caller: Caller;
    admin: GivenUser;
    session: SignedIn;
  }

  async function customer(): Promise<Customer> {
    const caller = await t.given.caller();
    const admin = await givenUser(t, 'admin', caller.accountId);
    return { caller, admin, session: await signIn(t, admin) };
  }

  function send(
    session: SignedIn,
    method: 'get' | 'post' | 'put' | 'delete',
    path: string,
    body?: object,
  ) {
    let req = t.http()[method](`${API}${path}`).set('Cookie', session.cookie);
    if (method !== 'get') req = req.set('X-CSRF-Token', session.csrf).send(body ?? {});
    return req;
  }

  /** An endpoint of `c`'s campaign delivering to a receiver of its own, with a plain and a secret header. */
  async function endpoint(
    c: Customer,
    events: string[] = ['lead.created'],
  ): Promise<{ id: number; secret: string; receiver: Receiver }> {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    const res = await send(c.session, 'post', `/campaigns/${c.caller.campaignId}/endpoints`, {
      url: receiver.url,
      events,
      headers: [
        { name: 'X-Tenant', value: 'acme', secret: false },
        { name: 'Authorization', value: SECRET_TOKEN, secret: true },
      ],
    });
    expect(res.status).toBe(201);
    return { id: res.body.endpoint.id as number, secret: res.body.secret as string, receiver };
  }

  function save(c: Customer, id: number, code: string) {
    return send(c.session, 'put', `/endpoints/${id}/transformation`, { code });
  }

  async function saved(c: Customer, id: number, code: string): Promise<number> {
    const res = await save(c, id, code);
    expect(res.status).toBe(200);
    return res.body.current.version as number;
  }

  function upload(c: Customer, leads: unknown[]) {
    return t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${c.caller.token}`)
      .send(uploadBody(c.caller.campaignId, leads))
      .expect(202);
  }

  async function deliveries(endpointId: number) {
    return t.db.query(
      `SELECT d.id::int AS id, d.status, d.status_reason, d.attempt_count, e.body
         FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 ORDER BY d.id`,
      [endpointId],
    ) as Promise<
      Array<{
        id: number;
        status: string;
        status_reason: string | null;
        attempt_count: number;
        body: string;
      }>
    >;
  }

  async function attemptsOf(endpointId: number) {
    return t.db.query(
      `SELECT delivery_id::int AS delivery_id, event_type, success, error, status_code,
              transformation_version, request_method, request_url, request_body
         FROM webhook_delivery_attempt WHERE endpoint_id = $1 ORDER BY attempted_at`,
      [endpointId],
    ) as Promise<Array<Record<string, unknown>>>;
  }

  async function counts(endpointId: number) {
    const [row] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM webhook_delivery WHERE endpoint_id = $1) AS deliveries,
              (SELECT count(*)::int FROM webhook_delivery_attempt WHERE endpoint_id = $1) AS attempts,
              (SELECT count(*)::int FROM webhook_transformation_version WHERE endpoint_id = $1) AS versions,
              (SELECT count(*)::int FROM audit_log_entry WHERE object_type = 'endpoint' AND object_id = $1::text) AS audit`,
      [endpointId],
    );
    return row as { deliveries: number; attempts: number; versions: number; audit: number };
  }

  describe('saving', () => {
    it('caps code at 64 KiB and lets only admins save, writing nothing when refused', async () => {
      const c = await customer();
      const { id } = await endpoint(c);
      const before = await counts(id);

      const big = `function handler(webhook) { return webhook; }\n// ${'x'.repeat(64 * 1024)}\n`;
      const tooBig = await save(c, id, big);
      expect(tooBig.status).toBe(422);
      expect(tooBig.body.error).toBe('validation_failed');
      expect(tooBig.body.message).toMatch(/^transformation is 65 KiB; at most 64 KiB$/);

      const viewer = await signIn(t, await givenUser(t, 'viewer', c.caller.accountId));
      const refused = await save(
        { ...c, session: viewer },
        id,
        'function handler(w) { return w; }',
      );
      expect(refused.status).toBe(403);
      // A viewer may read the (empty) state, never run code.
      expect((await send(viewer, 'get', `/endpoints/${id}/transformation`)).body).toEqual({
        endpoint_id: id,
        current: null,
        versions: [],
      });
      const run = await send(viewer, 'post', `/endpoints/${id}/transformation/run`, {
        code: 'function handler(w) { return w; }',
      });
      expect(run.status).toBe(403);

      expect(await counts(id)).toEqual(before);
    });

    it('refuses code that does not parse with 422 naming the line and the column', async () => {
      const c = await customer();
      const { id } = await endpoint(c);
      const res = await save(c, id, 'function handler(webhook) {\n  return = webhook;\n}\n');
      expect(res.status).toBe(422);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.message).toMatch(/^transformation line 2, column \d+: SyntaxError/);
      const noHandler = await save(c, id, 'function notTheHandler(webhook) { return webhook; }');
      expect(noHandler.status).toBe(422);
      expect(noHandler.body.message).toMatch(/handler/);
      expect((await counts(id)).versions).toBe(0);
    });
  });

  it('keeps every version: history, one version’s code, restore and clear, each audited without the code', async () => {
    const c = await customer();
    const { id } = await endpoint(c);
    const v1 = 'function handler(webhook) {\n  // MARKER-ONE\n  return webhook;\n}\n';
    const v2 = 'function handler(webhook) {\n  // MARKER-TWO\n  return null;\n}\n';
    expect(await saved(c, id, v1)).toBe(1);
    expect(await saved(c, id, v2)).toBe(2);

    const state = await send(c.session, 'get', `/endpoints/${id}/transformation`);
    expect(state.status).toBe(200);
    expect(state.body.current).toMatchObject({ version: 2, code: v2, restored_from: null });
    expect(state.body.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(state.body.versions[1]).toEqual({
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      created_by: expect.stringMatching(new RegExp(`^${c.admin.email.replace('.', '\\.')}$`, 'i')),
      restored_from: null,
      bytes: Buffer.byteLength(v1),
    });
    const code = await send(c.session, 'get', `/endpoints/${id}/transformation/code?version=1`);
    expect(code.body).toMatchObject({ version: 1, code: v1 });
    expect(
      (await send(c.session, 'get', `/endpoints/${id}/transformation/code?version=9`)).status,
    ).toBe(404);

    const restored = await send(c.session, 'post', `/endpoints/${id}/transformation/restore`, {
      version: 1,
    });
    expect(restored.status).toBe(200);
    expect(restored.body.current).toMatchObject({ version: 3, code: v1, restored_from: 1 });
    const [inForce] = await t.db.query(
      'SELECT transformation, transformation_version FROM webhook_endpoint WHERE id = $1',
      [id],
    );
    expect(inForce).toEqual({ transformation: v1, transformation_version: 3 });

    const cleared = await send(c.session, 'delete', `/endpoints/${id}/transformation`);
    expect(cleared.status).toBe(200);
    expect(cleared.body.current).toBeNull();
    expect(cleared.body.versions).toHaveLength(3);
    // Clearing again changes and records nothing.
    await send(c.session, 'delete', `/endpoints/${id}/transformation`).expect(200);

    const entries = await t.db.query(
      `SELECT action, actor_type, details FROM audit_log_entry
        WHERE object_type = 'endpoint' AND object_id = $1 AND action LIKE 'transformation.%'
        ORDER BY id`,
      [String(id)],
    );
    expect(entries).toEqual([
      {
        action: 'transformation.save',
        actor_type: 'user',
        details: { version: 1, previous_version: null, bytes: Buffer.byteLength(v1) },
      },
      {
        action: 'transformation.save',
        actor_type: 'user',
        details: { version: 2, previous_version: 1, bytes: Buffer.byteLength(v2) },
      },
      {
        action: 'transformation.restore',
        actor_type: 'user',
        details: {
          version: 3,
          previous_version: 2,
          restored_from: 1,
          bytes: Buffer.byteLength(v1),
        },
      },
      { action: 'transformation.clear', actor_type: 'user', details: { previous_version: 3 } },
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/MARKER|handler/);
  });

  it('runs code on the example and on a past delivery: the exact request, secret redacted, nothing sent or written', async () => {
    const c = await customer();
    const { id, receiver } = await endpoint(c);
    // A past delivery, sent as it is (no transformation in force yet).
    await upload(c, [{ phone: '+14155550150', first_name: 'Past' }]);
    await eventually(async () => expect(receiver.received).toHaveLength(1));
    const [past] = await deliveries(id);
    const before = await counts(id);

    const code = [
      'function handler(webhook) {',
      "  webhook.method = 'PUT';",
      "  webhook.url = webhook.url + '/contacts';",
      "  webhook.headers['X-Seen-Tenant'] = webhook.headers['X-Tenant'];",
      "  webhook.headers['X-Seen-Authorization'] = String(webhook.headers['Authorization']);",
      '  webhook.payload = { name: webhook.payload.data.first_name, type: webhook.event_type };',
      '  return webhook;',
      '}',
    ].join('\n');
    const onExample = await send(c.session, 'post', `/endpoints/${id}/transformation/run`, {
      code,
      event_type: 'lead.created',
    });
    expect(onExample.status).toBe(200);
    expect(onExample.body).toMatchObject({
      source: { kind: 'example', event_type: 'lead.created', delivery_id: null },
      version: 0,
      outcome: 'request',
      error: null,
      request: {
        method: 'PUT',
        url: `${receiver.url}/contacts`,
        body: JSON.stringify({ name: 'Alva', type: 'lead.created' }),
      },
    });
    const headers = lowerCased(onExample.body.request.headers as Record<string, string>);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-tenant': 'acme',
      'x-seen-tenant': 'acme',
      // The code never sees a secret header's value…
      'x-seen-authorization': 'undefined',
      // …which is added after it, and redacted in what is shown.
      authorization: '[redacted]',
      'webhook-id': onExample.body.source.webhook_id,
    });
    expect(JSON.stringify(onExample.body)).not.toContain(SECRET_TOKEN);

    const onPast = await send(c.session, 'post', `/endpoints/${id}/transformation/run`, {
      code,
      delivery_id: past.id,
    });
    expect(onPast.status).toBe(200);
    expect(onPast.body).toMatchObject({
      source: { kind: 'delivery', event_type: 'lead.created', delivery_id: past.id },
      outcome: 'request',
      request: { method: 'PUT', body: JSON.stringify({ name: 'Past', type: 'lead.created' }) },
    });
    const cancelled = await send(c.session, 'post', `/endpoints/${id}/transformation/run`, {
      code: 'function handler(webhook) { return null; }',
      delivery_id: past.id,
    });
    expect(cancelled.body).toMatchObject({ outcome: 'cancelled', request: null, error: null });

    await sleep(300);
    expect(receiver.received).toHaveLength(1);
    expect(await counts(id)).toEqual(before);
  });

  it('sends the method, URL, headers and string body the code returns, signed over the body sent', async () => {
    const c = await customer();
    const { id, secret, receiver } = await endpoint(c);
    const code = [
      'function handler(webhook) {',
      '  const lead = webhook.payload.data;',
      "  webhook.method = 'PATCH';",
      "  webhook.url = webhook.url + '/leads?id=' + lead.id;",
      "  webhook.headers['X-Lead-Phone'] = lead.phone;",
      "  webhook.headers['content-type'] = 'application/x-www-form-urlencoded';",
      "  webhook.payload = 'phone=' + encodeURIComponent(lead.phone) + '&name=' + lead.first_name;",
      '  return webhook;',
      '}',
    ].join('\n');
    expect(await saved(c, id, code)).toBe(1);
    await upload(c, [{ phone: '+14155550160', first_name: 'Form' }]);
    await eventually(async () => expect(receiver.received).toHaveLength(1));
    const [request] = receiver.received;
    const [lead] = await t.db.query(`SELECT id::int AS id FROM lead WHERE campaign_id = $1`, [
      c.caller.campaignId,
    ]);
    expect(request.method).toBe('PATCH');
    expect(request.path).toBe(`/hooks/leads?id=${lead.id}`);
    expect(request.body).toBe('phone=%2B14155550160&name=Form');
    expect(request.headers).toMatchObject({
      'content-type': 'application/x-www-form-urlencoded',
      'x-lead-phone': '+14155550160',
      'x-tenant': 'acme',
      authorization: SECRET_TOKEN,
    });
    expect(signatureVerifies(secret, request)).toBe(true);

    await eventually(async () =>
      expect(await attemptsOf(id)).toEqual([
        expect.objectContaining({
          success: true,
          transformation_version: 1,
          request_method: 'PATCH',
          request_url: `${receiver.url}/leads?id=${lead.id}`,
          request_body: request.body,
        }),
      ]),
    );
  });

  it('skips a delivery whose code returns null: reason transformation, no attempt, nothing sent', async () => {
    const c = await customer();
    const { id, receiver } = await endpoint(c);
    await saved(
      c,
      id,
      "function handler(webhook) {\n  if (webhook.payload.data.first_name === 'Skip') return null;\n  return webhook;\n}\n",
    );
    await upload(c, [
      { phone: '+14155550170', first_name: 'Skip' },
      { phone: '+14155550171', first_name: 'Keep' },
    ]);
    await eventually(async () => {
      const rows = await deliveries(id);
      expect(rows.map((d) => [d.status, d.status_reason, d.attempt_count])).toEqual([
        ['skipped', 'transformation', 0],
        ['succeeded', null, 1],
      ]);
    });
    const rows = await deliveries(id);
    const attempts = await attemptsOf(id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ delivery_id: rows[1].id, transformation_version: 1 });
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0].body).data.first_name).toBe('Keep');
  });

  it('fails a delivery at once on a throw, naming line and column, counts it in health, and delivers it after the fix with a transformation_errors recovery', async () => {
    const c = await customer();
    const { id, receiver } = await endpoint(c);
    const since = new Date(Date.now() - 1000).toISOString();
    await saved(
      c,
      id,
      [
        'function handler(webhook) {',
        '  const lead = webhook.payload.data;',
        "  if (lead.first_name === 'Boom') throw new Error('no owner for ' + lead.phone);",
        '  return webhook;',
        '}',
      ].join('\n'),
    );
    await upload(c, [{ phone: '+14155550180', first_name: 'Boom' }]);
    await eventually(async () => {
      const [d] = await deliveries(id);
      expect(d).toMatchObject({
        status: 'failed',
        status_reason: 'transformation_error',
        attempt_count: 1,
      });
    });
    const [attempt] = await attemptsOf(id);
    expect(attempt).toMatchObject({
      success: false,
      status_code: null,
      transformation_version: 1,
    });
    expect(attempt.error).toMatch(
      /^transformation_error: .*no owner for \+14155550180.* \(line 3, column \d+\)$/,
    );
    // Not retried on the schedule: still one attempt a moment later, nothing sent.
    await sleep(1500);
    expect(await attemptsOf(id)).toHaveLength(1);
    expect(receiver.received).toHaveLength(0);
    const health = await t
      .http()
      .get(`/api/v1/webhooks/${c.caller.campaignId}/endpoints/${id}/health`)
      .set('Authorization', `Bearer ${c.caller.token}`)
      .expect(200);
    expect(health.body).toMatchObject({ total_deliveries: 1, failed_deliveries: 1 });

    // Fixed: a recovery of the transformation errors sends it through version 2.
    await saved(c, id, 'function handler(webhook) {\n  return webhook;\n}\n');
    const recovery = await send(c.session, 'post', `/endpoints/${id}/recoveries`, {
      since,
      scope: 'transformation_errors',
    });
    expect(recovery.status).toBe(202);
    expect(recovery.body).toMatchObject({ scope: 'transformation_errors', total: 1 });
    await eventually(async () => expect(receiver.received).toHaveLength(1), 20_000);
    await eventually(async () => {
      const [d] = await deliveries(id);
      expect(d).toMatchObject({ status: 'succeeded', status_reason: null, attempt_count: 2 });
    });
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.success, a.transformation_version])).toEqual([
      [false, 1],
      [true, 2],
    ]);
  });

  it('refuses a returned webhook-signature as a transformation error; test events are transformed, pings are not', async () => {
    const c = await customer();
    const { id, receiver } = await endpoint(c);
    await saved(
      c,
      id,
      "function handler(webhook) {\n  webhook.headers['X-Transformed'] = 'yes';\n  return webhook;\n}\n",
    );
    const test = await send(c.session, 'post', `/endpoints/${id}/test`, {
      event_type: 'lead.created',
    });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ success: true });
    const ping = await send(c.session, 'post', `/endpoints/${id}/test`, { event_type: 'ping' });
    expect(ping.status).toBe(200);
    await eventually(async () => expect(receiver.received).toHaveLength(2));
    const [example, pinged] = receiver.received;
    expect(JSON.parse(example.body).type).toBe('lead.created');
    expect(example.headers['x-transformed']).toBe('yes');
    expect(JSON.parse(pinged.body).type).toBe('ping');
    expect(pinged.headers['x-transformed']).toBeUndefined();
    const attempts = await attemptsOf(id);
    expect(attempts.map((a) => [a.event_type, a.transformation_version])).toEqual([
      ['lead.created', 1],
      ['ping', null],
    ]);

    await saved(
      c,
      id,
      "function handler(webhook) {\n  webhook.headers['webhook-signature'] = 'v1,forged';\n  return webhook;\n}\n",
    );
    const forged = await send(c.session, 'post', `/endpoints/${id}/test`, {
      event_type: 'lead.created',
    });
    expect(forged.status).toBe(200);
    expect(forged.body.success).toBe(false);
    expect(forged.body.error).toMatch(/^transformation_error: .*webhook-signature/i);
    await sleep(300);
    expect(receiver.received).toHaveLength(2);
  });

  describe('the CLI: endpoint set-transformation (docs/cli.md#commands)', () => {
    jest.setTimeout(180_000);
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'transformations-cli-'));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    async function cli(...args: string[]) {
      try {
        const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
          env: { ...process.env, QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-cli` },
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    }

    it('saves a file as the next version by cli, clears it, and refuses a file too large or code that fails the check in one line', async () => {
      const c = await customer();
      const { id } = await endpoint(c);
      await saved(c, id, 'function handler(webhook) {\n  return webhook;\n}\n');
      const code = 'function handler(webhook) {\n  return null;\n}\n';
      const file = join(dir, 'hook.js');
      await writeFile(file, code);

      const set = await cli('endpoint', 'set-transformation', String(id), '--file', file);
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout)).toEqual({
        endpoint_id: id,
        version: 2,
        previous_version: 1,
        bytes: Buffer.byteLength(code),
        created_by: 'cli',
        created_at: expect.stringMatching(/Z$/),
      });
      const state = await send(c.session, 'get', `/endpoints/${id}/transformation`);
      expect(state.body.current).toMatchObject({ version: 2, code, created_by: 'cli' });

      const big = join(dir, 'big.js');
      await writeFile(big, `// ${'x'.repeat(64 * 1024)}\n`);
      const tooBig = await cli('endpoint', 'set-transformation', String(id), '--file', big);
      expect(tooBig).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: --file ${big} is 65 KiB; a transformation is at most 64 KiB\n`,
      });
      const missing = await cli(
        'endpoint',
        'set-transformation',
        '999999',
        '--clear-transformation',
      );
      expect(missing).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: webhook endpoint 999999 does not exist\n',
      });

      const cleared = await cli(
        'endpoint',
        'set-transformation',
        String(id),
        '--clear-transformation',
      );
      expect(cleared.code).toBe(0);
      expect(JSON.parse(cleared.stdout)).toEqual({
        endpoint_id: id,
        version: null,
        previous_version: 2,
      });
      const entries = await t.db.query(
        `SELECT action, actor_type FROM audit_log_entry
          WHERE object_type = 'endpoint' AND object_id = $1 AND action LIKE 'transformation.%' ORDER BY id`,
        [String(id)],
      );
      expect(entries).toEqual([
        { action: 'transformation.save', actor_type: 'user' },
        { action: 'transformation.save', actor_type: 'cli' },
        { action: 'transformation.clear', actor_type: 'cli' },
      ]);
    });

    it('refuses code the sandbox refuses with one line naming the file, line and column, and saves nothing', async () => {
      const c = await customer();
      const { id } = await endpoint(c);
      const file = join(dir, 'broken.js');
      await writeFile(file, 'function handler(webhook) {\n  return = webhook;\n}\n');
      const broken = await cli('endpoint', 'set-transformation', String(id), '--file', file);
      expect(broken.code).toBe(1);
      expect(broken.stdout).toBe('');
      expect(broken.stderr.trim().split('\n')).toHaveLength(1);
      expect(broken.stderr).toMatch(
        new RegExp(`^error: the transformation in ${file} was not saved: line 2, column \\d+: `),
      );
      expect((await counts(id)).versions).toBe(0);
    });
  });
});

/** `headers` with lower-case names. */
function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
