import { verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateSigningKeyPair, verifyingKeyObject } from '../../webhooks';
import type { AppConfig } from '../../config/app-config';
import {
  boundedResponseHeaders,
  loggedHeaders,
  MAX_RESPONSE_HEADER_VALUE,
  MAX_RESPONSE_HEADERS,
  WebhookSender,
} from './webhook.sender';

const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const PREVIOUS = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

describe('WebhookSender.sign and loggedHeaders', () => {
  const sender = new WebhookSender({
    webhookTimeoutMs: 1000,
    webhookAllowPrivateUrls: true,
  } as AppConfig);
  afterAll(() => sender.onModuleDestroy());
  const at = new Date('2026-11-23T08:00:00.900Z');
  const message = { id: 'test_5f0c', body: '{"type":"ping","timestamp":"x","data":{}}' };

  it('signs as of the given time, verifiably, with one signature per secret', () => {
    const signed = sender.sign('http://example.com/h', [SECRET, PREVIOUS], message, at);
    expect(signed).toMatchObject({ url: 'http://example.com/h', body: message.body });
    expect(signed.signingError).toBeNull();
    expect(Object.keys(signed.headers)).toEqual([
      'content-type',
      'user-agent',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(signed.headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    const signatures = signed.headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    const verify = (secret: string) =>
      new Webhook(secret).verify(message.body, signed.headers) as unknown;
    jest.useFakeTimers({ now: at });
    try {
      expect(verify(SECRET)).toEqual(JSON.parse(message.body));
      expect(verify(PREVIOUS)).toEqual(JSON.parse(message.body));
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps every header but only the first 12 characters of each signature', () => {
    const signed = sender.sign('http://example.com/h', [SECRET, PREVIOUS], message, at);
    const logged = loggedHeaders(signed.headers);
    const [first, second] = signed.headers['webhook-signature'].split(' ');
    expect(logged).toEqual({
      ...signed.headers,
      'webhook-signature': `v1,${first.slice(3, 15)}… v1,${second.slice(3, 15)}…`,
    });
    expect(Object.keys(logged)).toEqual(Object.keys(signed.headers));
    expect(JSON.stringify(logged)).not.toContain(first.slice(3, 16));
    expect(JSON.stringify(logged)).not.toContain(SECRET.slice(6));
    expect(signed.headers['webhook-signature']).toBe(`${first} ${second}`); // not changed
  });

  it('signs with an ed25519 key as v1a and keeps 12 characters of it in the log, never the key', () => {
    const pair = generateSigningKeyPair();
    const signed = sender.sign('http://example.com/h', [pair.secretKey, SECRET], message, at);
    expect(signed.signingError).toBeNull();
    const [v1a, v1] = signed.headers['webhook-signature'].split(' ');
    expect(v1a).toMatch(/^v1a,/);
    expect(v1).toMatch(/^v1,/);
    const key = verifyingKeyObject(pair.publicKey);
    const content = `${message.id}.${signed.headers['webhook-timestamp']}.${message.body}`;
    expect(verify(null, Buffer.from(content), key, Buffer.from(v1a.slice(4), 'base64'))).toBe(true);
    const logged = loggedHeaders(signed.headers);
    expect(logged['webhook-signature']).toBe(`v1a,${v1a.slice(4, 16)}… v1,${v1.slice(3, 15)}…`);
    expect(JSON.stringify(logged)).not.toContain(v1a.slice(4, 17));
    expect(JSON.stringify(logged)).not.toContain(pair.secretKey.slice(5, 15));
  });

  it('reports a message it cannot sign as a failed result, sending nothing', async () => {
    const signed = sender.sign('http://127.0.0.1:9/h', ['whsec_'], message, at);
    expect(signed.signingError).toMatch(/^could not sign: /);
    expect(loggedHeaders(signed.headers)['webhook-signature']).toBe('');
    expect(await sender.sendSigned(signed)).toMatchObject({
      success: false,
      statusCode: null,
      error: signed.signingError,
      durationMs: 0,
    });
  });
});

describe('boundedResponseHeaders', () => {
  it('keeps headers in order, joins repeated ones, removes NULs and redacts credentials', () => {
    expect(
      boundedResponseHeaders({
        'X-Trace': 'a\u0000b',
        via: ['1.1 edge', '1.1 origin'],
        'set-cookie': ['sid=secret1', 'other=secret2'],
        authorization: 'Bearer receiver-token',
        skipped: undefined,
      }),
    ).toEqual({
      'x-trace': 'ab',
      via: '1.1 edge, 1.1 origin',
      'set-cookie': '[redacted]',
      authorization: '[redacted]',
    });
  });

  it('caps the count, each value and the total size, and drops overlong names', () => {
    const many = Object.fromEntries(
      Array.from({ length: 70 }, (_, i) => [`h${String(i).padStart(2, '0')}`, 'v']),
    );
    const kept = boundedResponseHeaders({ ['n'.repeat(101)]: 'dropped', ...many })!;
    expect(Object.keys(kept)).toHaveLength(MAX_RESPONSE_HEADERS);
    expect(Object.keys(kept)[0]).toBe('h00');

    const long = boundedResponseHeaders({ a: 'x'.repeat(1000) })!;
    expect(long.a).toBe(`${'x'.repeat(MAX_RESPONSE_HEADER_VALUE)}…`);

    const big = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`big-${i}`, 'y'.repeat(300)]),
    );
    const total = Object.entries(boundedResponseHeaders(big)!).reduce(
      (sum, [name, value]) => sum + name.length + value.length,
      0,
    );
    expect(total).toBeLessThanOrEqual(4096);
    expect(boundedResponseHeaders({})).toBeNull();
  });
});
