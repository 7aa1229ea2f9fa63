import { createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  verifyWebhook,
  WebhookVerificationError,
  type LeadCreatedEvent,
  type WebhookEvent,
} from '../src';

const NOW = new Date('2026-11-27T10:00:00Z');
const SECONDS = Math.floor(NOW.getTime() / 1000);
const BODY = JSON.stringify({
  type: 'lead.created',
  timestamp: '2026-11-27T09:59:59.000Z',
  data: { id: 7, campaign_id: 1, phone: '+14155552671', first_name: null, tags: [] },
});
const ID = 'b1a0e3f4-6a36-4c8b-9d0e-2f1f7a3c9e11';

/** A Standard Webhooks secret: whsec_ and the base64 of random bytes. */
const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** A `v1` signature of `body` with `key`, as the spec computes it. */
function v1(key: string, body = BODY, id = ID, timestamp = SECONDS): string {
  const bytes = Buffer.from(key.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', bytes).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** An ed25519 key pair as the spec serialises the public key: whpk_ and its raw 32 bytes. */
function ed25519Pair(): { privateKey: KeyObject; whpk: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { privateKey, whpk: `whpk_${raw.toString('base64')}` };
}

/** A `v1a` signature of `body` with the private key. */
function v1a(privateKey: KeyObject, body = BODY, id = ID, timestamp = SECONDS): string {
  return `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`), privateKey).toString('base64')}`;
}

const headers = (signature: string, timestamp = SECONDS) => ({
  'webhook-id': ID,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

/** The code of the WebhookVerificationError `run` throws. */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).code;
  }
  throw new Error('expected verifyWebhook to throw');
}

describe('verifyWebhook (docs/client.md#verifying-webhooks)', () => {
  it('v1: returns the typed event for a valid HMAC-SHA256 signature', () => {
    const key = secret();
    const event = verifyWebhook(BODY, headers(v1(key)), key, { now: NOW });
    expect(event).toEqual(JSON.parse(BODY));
    if (event.type === 'lead.created') {
      const lead: LeadCreatedEvent['data'] = event.data;
      expect(lead.id).toBe(7);
    } else {
      throw new Error('narrowed to lead.created');
    }
  });

  it('v1a: returns the event for a valid ed25519 signature with a whpk_ key', () => {
    const { privateKey, whpk } = ed25519Pair();
    const event: WebhookEvent | { type: 'ping' } = verifyWebhook(
      Buffer.from(BODY),
      headers(v1a(privateKey)),
      whpk,
      { now: NOW },
    );
    expect(event.type).toBe('lead.created');
  });

  it('accepts any valid one of several signatures, in any header case and as fetch Headers', () => {
    const key = secret();
    const { privateKey, whpk } = ed25519Pair();
    const several = `v1,${randomBytes(32).toString('base64')} ${v1(key)} ${v1a(privateKey)}`;
    expect(verifyWebhook(BODY, headers(several), key, { now: NOW }).type).toBe('lead.created');
    expect(verifyWebhook(BODY, headers(several), whpk, { now: NOW }).type).toBe('lead.created');
    const upper = {
      'Webhook-Id': ID,
      'Webhook-Timestamp': String(SECONDS),
      'Webhook-Signature': several,
    };
    expect(verifyWebhook(BODY, upper, key, { now: NOW }).type).toBe('lead.created');
    expect(verifyWebhook(BODY, new Headers(upper), key, { now: NOW }).type).toBe('lead.created');
  });

  it('refuses a wrong key, of either kind', () => {
    const { privateKey } = ed25519Pair();
    expect(failure(() => verifyWebhook(BODY, headers(v1(secret())), secret(), { now: NOW }))).toBe(
      'invalid_signature',
    );
    expect(
      failure(() =>
        verifyWebhook(BODY, headers(v1a(privateKey)), ed25519Pair().whpk, { now: NOW }),
      ),
    ).toBe('invalid_signature');
  });

  it('refuses a signature of the other version: a v1 header for a whpk_ key', () => {
    const key = secret();
    expect(
      failure(() => verifyWebhook(BODY, headers(v1(key)), ed25519Pair().whpk, { now: NOW })),
    ).toBe('invalid_signature');
  });

  it('refuses a tampered body, id or timestamp', () => {
    const key = secret();
    const { privateKey, whpk } = ed25519Pair();
    const tampered = BODY.replace('"id":7', '"id":8');
    expect(failure(() => verifyWebhook(tampered, headers(v1(key)), key, { now: NOW }))).toBe(
      'invalid_signature',
    );
    expect(
      failure(() => verifyWebhook(tampered, headers(v1a(privateKey)), whpk, { now: NOW })),
    ).toBe('invalid_signature');
    const otherId = { ...headers(v1(key)), 'webhook-id': 'another' };
    expect(failure(() => verifyWebhook(BODY, otherId, key, { now: NOW }))).toBe(
      'invalid_signature',
    );
    expect(
      failure(() => verifyWebhook(BODY, headers(v1(key), SECONDS - 1), key, { now: NOW })),
    ).toBe('invalid_signature');
  });

  it('refuses a timestamp more than five minutes old or ahead, even when well signed', () => {
    const key = secret();
    const old = SECONDS - 301;
    expect(
      failure(() => verifyWebhook(BODY, headers(v1(key, BODY, ID, old), old), key, { now: NOW })),
    ).toBe('timestamp_too_old');
    const ahead = SECONDS + 301;
    expect(
      failure(() =>
        verifyWebhook(BODY, headers(v1(key, BODY, ID, ahead), ahead), key, { now: NOW }),
      ),
    ).toBe('timestamp_too_new');
    const edge = SECONDS - 300;
    expect(
      verifyWebhook(BODY, headers(v1(key, BODY, ID, edge), edge), key, { now: NOW }).type,
    ).toBe('lead.created');
    // A wider tolerance lets the old one through.
    expect(
      verifyWebhook(BODY, headers(v1(key, BODY, ID, old), old), key, {
        now: NOW,
        toleranceSeconds: 600,
      }).type,
    ).toBe('lead.created');
  });

  it('refuses missing headers, a bad timestamp, an unknown key and a body that is no event', () => {
    const key = secret();
    const { 'webhook-id': _id, ...noId } = headers(v1(key));
    expect(failure(() => verifyWebhook(BODY, noId, key, { now: NOW }))).toBe('missing_header');
    expect(
      failure(() => verifyWebhook(BODY, { ...headers(v1(key)), 'webhook-timestamp': '1e9' }, key)),
    ).toBe('invalid_timestamp');
    expect(failure(() => verifyWebhook(BODY, headers(v1(key)), 'sk_live_123', { now: NOW }))).toBe(
      'invalid_key',
    );
    expect(failure(() => verifyWebhook(BODY, headers(v1(key)), 'whpk_AAAA', { now: NOW }))).toBe(
      'invalid_key',
    );
    expect(failure(() => verifyWebhook('[1]', headers(v1(key, '[1]')), key, { now: NOW }))).toBe(
      'invalid_body',
    );
  });

  it('uses the current time by default', () => {
    const key = secret();
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(BODY, headers(v1(key, BODY, ID, now), now), key).type).toBe(
      'lead.created',
    );
    expect(failure(() => verifyWebhook(BODY, headers(v1(key)), key))).toBe('timestamp_too_old');
  });
});
