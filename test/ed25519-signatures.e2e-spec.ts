/**
 * Asymmetric (ed25519, Standard Webhooks `v1a`) signatures end to end
 * (docs/webhooks.md#asymmetric-signatures): an endpoint created asymmetric through the dashboard
 * API, its public key read from the dashboard, real deliveries to a local receiver verified with
 * Node's `crypto.verify` and nothing else, the 24-hour overlap after a rotation and after a
 * change of scheme, the audit entries, and the secret key kept out of every answer, the attempt
 * log and the database in clear.
 */
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import type request from 'supertest';
import { SigningSecretBox } from '../src/webhooks/signing-secrets.service';
import { givenUser, signIn, type SignedIn } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, uploadBody, type Caller, type TestApp } from './support/test-app';
import {
  verifyWebhook as verifyClientWebhook,
  WebhookVerificationError,
  type WebhookHeaders,
} from '../packages/client/src';
import { verifyWebhook, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

const API = '/dashboard/api';
const WHPK = /^whpk_[A-Za-z0-9+/]{43}=$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What a receiver does with the public key shown on the dashboard, independently of the
 * service's code: a KeyObject from the raw key as a JWK, and `crypto.verify` of each `v1a`
 * entry over `${webhook-id}.${webhook-timestamp}.${body}`.
 * @returns for each `v1a` entry of the header, whether it verifies with `publicKey`.
 */
function v1aVerifies(publicKey: string, webhook: ReceivedWebhook): boolean[] {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  const content = Buffer.from(
    `${String(webhook.headers['webhook-id'])}.${String(webhook.headers['webhook-timestamp'])}.${webhook.body}`,
  );
  return String(webhook.headers['webhook-signature'])
    .split(' ')
    .filter((entry) => entry.startsWith('v1a,'))
    .map((entry) => verify(null, content, key, Buffer.from(entry.slice(4), 'base64')));
}

describe('ed25519 (v1a) signatures (docs/webhooks.md#asymmetric-signatures)', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];
  /** Every dashboard and public API answer of the file, to search for secret keys at the end. */
  const answers: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_SCHEDULE: '1h' });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  async function receiver(): Promise<WebhookReceiver> {
    const r = await new WebhookReceiver().start();
    receivers.push(r);
    return r;
  }

  function dashboard(session: SignedIn) {
    const send = async (method: 'get' | 'post', path: string, body?: object) => {
      let req = t.http()[method](`${API}${path}`).set('Cookie', session.cookie);
      if (method === 'post') req = req.set('X-CSRF-Token', session.csrf).send(body ?? {});
      const res: request.Response = await req;
      answers.push(res.text);
      return res;
    };
    return {
      get: (path: string) => send('get', path),
      post: (path: string, body?: object) => send('post', path, body),
    };
  }

  async function customer() {
    const caller = await t.given.caller();
    const admin = await givenUser(t, 'admin', caller.accountId);
    return { caller, admin, dash: dashboard(await signIn(t, admin)) };
  }

  let phone = 100;
  /** Uploads one new lead (a new phone each time), which the endpoint hears of. */
  const upload = (caller: Caller) =>
    t
      .http()
      .post('/api/v1/leads/upload')
      .set('Authorization', `Bearer ${caller.token}`)
      .send(uploadBody(caller.campaignId, [{ phone: `+14155550${++phone}` }]))
      .expect(202);

  /** The endpoint's row: its stored (encrypted) keys and its public keys. */
  const row = async (id: number) =>
    (
      await t.db.query(
        `SELECT signature_scheme, public_key, previous_public_key, secret_encrypted,
                previous_secret_encrypted, row_to_json(e)::text AS text
           FROM webhook_endpoint e WHERE id = $1`,
        [id],
      )
    )[0] as {
      signature_scheme: string;
      public_key: string | null;
      previous_public_key: string | null;
      secret_encrypted: string;
      previous_secret_encrypted: string | null;
      text: string;
    };

  const auditEntries = async (accountId: number, action: string) =>
    (await t.db.query(
      `SELECT actor_type, object_id, details FROM audit_log_entry
        WHERE account_id = $1 AND action = $2 ORDER BY id`,
      [accountId, action],
    )) as Array<{ actor_type: string; object_id: string; details: Record<string, unknown> }>;

  it('delivers v1a signatures a receiver verifies with the dashboard’s public key, keeps both keys signing for 24 hours after a rotation, and never shows the secret key', async () => {
    const c = await customer();
    const r = await receiver();
    const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
      url: r.url,
      events: ['leads.bulk_created'],
      signature_scheme: 'asymmetric',
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toBeNull();
    const { id } = created.body.endpoint as { id: number };
    expect(created.body.endpoint).toMatchObject({
      signature_scheme: 'asymmetric',
      public_key: expect.stringMatching(WHPK),
      previous_public_key: null,
    });

    // The public key as the endpoint's page reads it.
    const page = await c.dash.get(`/endpoints/${id}`);
    expect(page.status).toBe(200);
    const publicKey = page.body.public_key as string;
    expect(publicKey).toBe(created.body.endpoint.public_key);

    // The database holds the secret key only encrypted, and the public key in clear.
    const stored = await row(id);
    expect(stored).toMatchObject({ signature_scheme: 'asymmetric', public_key: publicKey });
    expect(stored.secret_encrypted).toMatch(/^v1:/);
    const secretKey = t.app.get(SigningSecretBox).decrypt(stored.secret_encrypted);
    expect(secretKey).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(stored.text).not.toContain(secretKey.slice(5));
    expect(stored.text).not.toContain('whsk_');

    // A real delivery, verified with crypto.verify and the public key only.
    await upload(c.caller);
    const [first] = await r.waitFor(1);
    expect(String(first.headers['webhook-signature'])).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    expect(v1aVerifies(publicKey, first)).toEqual([true]);
    expect(JSON.parse(first.body).type).toBe('leads.bulk_created');
    // The client package's verifier, written from the specification apart from the signer,
    // accepts it with the public key and types the event; another key is refused.
    const typed = verifyClientWebhook(first.body, first.headers as WebhookHeaders, publicKey);
    expect(typed.type).toBe('leads.bulk_created');
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const otherKey = `whpk_${Buffer.from(other.x!, 'base64url').toString('base64')}`;
    expect(() =>
      verifyClientWebhook(first.body, first.headers as WebhookHeaders, otherKey),
    ).toThrow(WebhookVerificationError);

    // Its secret key cannot be revealed.
    const reveal = await c.dash.post(`/endpoints/${id}/secret/reveal`);
    expect(reveal.status).toBe(409);
    expect(reveal.body.error).toBe('conflict');
    expect(await auditEntries(c.caller.accountId, 'secret.reveal')).toEqual([]);

    // Rotation: a new key pair signs, the previous one keeps signing for 24 hours.
    const before = Date.now();
    const rotated = await c.dash.post(`/endpoints/${id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      secret: null,
      signature_scheme: 'asymmetric',
      public_key: expect.stringMatching(WHPK),
      previous_secret_expires_at: expect.any(String),
    });
    const newKey = rotated.body.public_key as string;
    expect(newKey).not.toBe(publicKey);
    const expiresAt = Date.parse(rotated.body.previous_secret_expires_at as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + DAY_MS - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + DAY_MS);
    const afterRotation = (await c.dash.get(`/endpoints/${id}`)).body;
    expect(afterRotation).toMatchObject({
      public_key: newKey,
      previous_public_key: publicKey,
      previous_secret_expires_at: rotated.body.previous_secret_expires_at,
    });
    const rotatedRow = await row(id);
    const newSecretKey = t.app.get(SigningSecretBox).decrypt(rotatedRow.secret_encrypted);
    expect(rotatedRow.previous_secret_encrypted).toBe(stored.secret_encrypted);
    expect(rotatedRow.text).not.toContain(newSecretKey.slice(5));

    await upload(c.caller);
    const [, second] = await r.waitFor(2);
    const entries = String(second.headers['webhook-signature']).split(' ');
    expect(entries).toHaveLength(2);
    expect(entries.every((entry) => entry.startsWith('v1a,'))).toBe(true);
    expect(v1aVerifies(newKey, second)).toEqual([true, false]);
    expect(v1aVerifies(publicKey, second)).toEqual([false, true]);
    // During the overlap a receiver holding either key accepts the delivery.
    for (const key of [newKey, publicKey]) {
      expect(verifyClientWebhook(second.body, second.headers as WebhookHeaders, key).type).toBe(
        'leads.bulk_created',
      );
    }

    // Audited like a secret rotation, with the new public key and never a secret key.
    const [rotation] = await auditEntries(c.caller.accountId, 'secret.rotate');
    expect(rotation).toMatchObject({
      actor_type: 'user',
      object_id: String(id),
      details: {
        previous_secret_expires_at: rotated.body.previous_secret_expires_at,
        signature_scheme: 'asymmetric',
        public_key: newKey,
      },
    });
    const [creation] = await auditEntries(c.caller.accountId, 'endpoint.create');
    expect(creation.details).toMatchObject({ signature_scheme: 'asymmetric' });

    // The attempt log keeps each signature cut to 12 characters.
    await eventually(async () => {
      const page = await c.dash.get(`/endpoints/${id}/attempts`);
      expect(page.body.items).toHaveLength(2);
    });
    const attempts = (await c.dash.get(`/endpoints/${id}/attempts`)).body.items as Array<{
      id: number;
    }>;
    const detail = await c.dash.get(`/attempts/${attempts[0].id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.request.headers['webhook-signature']).toBe(
      entries.map((entry) => `v1a,${entry.slice(4, 16)}…`).join(' '),
    );
    const attemptRows = (await t.db.query(
      'SELECT row_to_json(a)::text AS text FROM webhook_delivery_attempt a WHERE endpoint_id = $1',
      [id],
    )) as Array<{ text: string }>;
    expect(attemptRows).toHaveLength(2);
    for (const { text } of attemptRows) {
      for (const entry of [...entries, String(first.headers['webhook-signature'])]) {
        expect(text).not.toContain(entry.slice(4, 17));
      }
      expect(text).not.toContain(secretKey.slice(5));
      expect(text).not.toContain(newSecretKey.slice(5));
    }

    // The public API's listing keeps exactly its documented fields (docs/api.md#webhook-reads).
    const listed = await t
      .http()
      .get(`/api/v1/webhooks/${c.caller.campaignId}/endpoints`)
      .set('Authorization', `Bearer ${c.caller.token}`)
      .expect(200);
    answers.push(listed.text);
    expect(listed.body).toHaveLength(1);
    expect(Object.keys(listed.body[0])).toEqual([
      'id',
      'campaign_id',
      'url',
      'description',
      'subscribed_events',
      'is_enabled',
      'created_at',
      'last_delivery_is_successful',
    ]);

    // No answer of the file ever held a secret key, nor did any audit entry.
    const audit = await t.db.query(
      'SELECT row_to_json(a)::text AS text FROM audit_log_entry a WHERE account_id = $1',
      [c.caller.accountId],
    );
    for (const text of [...answers, ...audit.map((a: { text: string }) => a.text)]) {
      expect(text).not.toContain('whsk_');
      expect(text).not.toContain(secretKey.slice(5));
      expect(text).not.toContain(newSecretKey.slice(5));
    }
  });

  it('changes the scheme like a rotation: both a v1 and a v1a signature for 24 hours, audited, and the same scheme again is a conflict', async () => {
    const c = await customer();
    const r = await receiver();
    const created = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
      url: r.url,
      events: ['leads.bulk_created'],
    });
    expect(created.body.endpoint).toMatchObject({
      signature_scheme: 'symmetric',
      public_key: null,
    });
    const { id } = created.body.endpoint as { id: number };
    const hmacSecret = created.body.secret as string;

    // Symmetric → asymmetric: the whsec_ secret keeps signing v1 beside the new v1a.
    const toAsymmetric = await c.dash.post(`/endpoints/${id}/signature-scheme`, {
      signature_scheme: 'asymmetric',
    });
    expect(toAsymmetric.status).toBe(200);
    expect(toAsymmetric.body).toMatchObject({
      secret: null,
      signature_scheme: 'asymmetric',
      public_key: expect.stringMatching(WHPK),
    });
    const publicKey = toAsymmetric.body.public_key as string;
    expect((await c.dash.get(`/endpoints/${id}`)).body).toMatchObject({
      signature_scheme: 'asymmetric',
      public_key: publicKey,
      previous_public_key: null,
      previous_secret_expires_at: toAsymmetric.body.previous_secret_expires_at,
    });
    await upload(c.caller);
    const [first] = await r.waitFor(1);
    expect(
      String(first.headers['webhook-signature'])
        .split(' ')
        .map((entry) => entry.split(',')[0]),
    ).toEqual(['v1a', 'v1']);
    expect(v1aVerifies(publicKey, first)).toEqual([true]);
    expect(verifyWebhook(hmacSecret, first).type).toBe('leads.bulk_created');
    expect(await auditEntries(c.caller.accountId, 'secret.change_scheme')).toEqual([
      {
        actor_type: 'user',
        object_id: String(id),
        details: {
          signature_scheme: 'asymmetric',
          previous_signature_scheme: 'symmetric',
          previous_secret_expires_at: toAsymmetric.body.previous_secret_expires_at,
          public_key: publicKey,
        },
      },
    ]);

    // The same scheme again changes nothing.
    const again = await c.dash.post(`/endpoints/${id}/signature-scheme`, {
      signature_scheme: 'asymmetric',
    });
    expect(again.status).toBe(409);
    expect((await row(id)).public_key).toBe(publicKey);

    // An unknown scheme is refused, nothing written.
    const unknown = await c.dash.post(`/endpoints/${id}/signature-scheme`, {
      signature_scheme: 'rsa',
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toMatch(/^signature_scheme must be one of symmetric, asymmetric/);

    // Back to symmetric: a new whsec_ (shown once) signs v1; the ed25519 key keeps signing v1a.
    const toSymmetric = await c.dash.post(`/endpoints/${id}/signature-scheme`, {
      signature_scheme: 'symmetric',
    });
    expect(toSymmetric.status).toBe(200);
    expect(toSymmetric.body).toMatchObject({
      secret: expect.stringMatching(/^whsec_/),
      signature_scheme: 'symmetric',
      public_key: null,
    });
    expect((await c.dash.get(`/endpoints/${id}`)).body).toMatchObject({
      signature_scheme: 'symmetric',
      public_key: null,
      previous_public_key: publicKey,
    });
    await upload(c.caller);
    const [, second] = await r.waitFor(2);
    expect(
      String(second.headers['webhook-signature'])
        .split(' ')
        .map((entry) => entry.split(',')[0]),
    ).toEqual(['v1', 'v1a']);
    expect(verifyWebhook(toSymmetric.body.secret as string, second).type).toBe(
      'leads.bulk_created',
    );
    expect(v1aVerifies(publicKey, second)).toEqual([true]);
    expect(() => verifyWebhook(hmacSecret, second)).toThrow();
    expect(await auditEntries(c.caller.accountId, 'secret.change_scheme')).toHaveLength(2);
  });

  it('refuses an unknown scheme at creation and writes nothing', async () => {
    const c = await customer();
    const res = await c.dash.post(`/campaigns/${c.caller.campaignId}/endpoints`, {
      url: 'https://hooks.example.com/a',
      events: ['lead.created'],
      signature_scheme: 'hmac',
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'validation_failed',
      message: expect.stringMatching(/^signature_scheme must be one of symmetric, asymmetric/),
    });
    const [{ n }] = await t.db.query(
      'SELECT count(*)::int AS n FROM webhook_endpoint WHERE campaign_id = $1',
      [c.caller.campaignId],
    );
    expect(n).toBe(0);
    expect(await auditEntries(c.caller.accountId, 'endpoint.create')).toEqual([]);
  });
});
