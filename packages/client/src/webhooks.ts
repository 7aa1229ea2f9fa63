import { createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import type { components } from './generated/schema';

type Schemas = components['schemas'];

/** The body of a `lead.created` webhook: one per lead an upload created. */
export type LeadCreatedEvent = Schemas['LeadCreatedEvent'];
/** The body of a `leads.bulk_created` webhook: one per upload that created leads. */
export type LeadsBulkCreatedEvent = Schemas['LeadsBulkCreatedEvent'];
/** The body of a `lead.status_changed` webhook. */
export type LeadStatusChangedEvent = Schemas['LeadStatusChangedEvent'];
/** The body of a `lead.converted` webhook. */
export type LeadConvertedEvent = Schemas['LeadConvertedEvent'];
/** The body of a `call.started` webhook. */
export type CallStartedEvent = Schemas['CallStartedEvent'];
/** The body of a `call.completed` webhook. */
export type CallCompletedEvent = Schemas['CallCompletedEvent'];
/** The body of a `form.submitted` webhook. */
export type FormSubmittedEvent = Schemas['FormSubmittedEvent'];
/** The body of a test ping, sent only when asked for from the dashboard or the CLI. */
export type PingEvent = Schemas['PingEvent'];

/** Any subscribable event's body, discriminated by `type`. */
export type WebhookEvent =
  | LeadCreatedEvent
  | LeadsBulkCreatedEvent
  | LeadStatusChangedEvent
  | LeadConvertedEvent
  | CallStartedEvent
  | CallCompletedEvent
  | FormSubmittedEvent;

/** A subscribable event type: `lead.created`, … */
export type WebhookEventType = WebhookEvent['type'];

/** The `data` of an event of type `T`. */
export type WebhookEventData<T extends WebhookEventType> = Extract<
  WebhookEvent,
  { type: T }
>['data'];

/** Why {@link verifyWebhook} refused a request. */
export type WebhookVerificationErrorCode =
  | 'invalid_key'
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_body';

/** Thrown by {@link verifyWebhook}: the request is not to be trusted (or the key is unusable). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time (for tests); default `new Date()`. */
  now?: Date;
}

/** The request headers: Node's `req.headers`, a fetch `Headers`, or a plain object of strings. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

const SECRET_PREFIX = 'whsec_';
const PUBLIC_KEY_PREFIX = 'whpk_';
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** A key as verifyWebhook uses it: which signature version it checks, and how. */
type Verifier = { version: 'v1' | 'v1a'; check: (content: Buffer, signature: Buffer) => boolean };

/**
 * Verifies a webhook request the service sent and returns its body, parsed and typed
 * (docs/client.md#verifying-webhooks). Follows Standard Webhooks: the signed content is
 * `{webhook-id}.{webhook-timestamp}.{body}`; `webhook-signature` holds one or more
 * space-separated `version,<base64>` signatures, and one valid signature of the key's version
 * is enough.
 *
 * - `key` `whsec_<base64 secret>` (the endpoint's signing secret) checks `v1` signatures:
 *   HMAC-SHA256, compared in constant time.
 * - `key` `whpk_<base64 of the raw 32-byte public key>` checks `v1a` signatures: ed25519.
 *
 * Pass the raw body exactly as received (a string or the bytes), never a re-serialised object.
 *
 * @param body the request body as received.
 * @param headers the request headers (names in any case).
 * @param key the endpoint's `whsec_` secret or `whpk_` public key.
 * @returns the event (or test ping) the body holds. A type this client does not know yet is
 *   returned as sent: keep a default branch when switching on `type`.
 * @throws WebhookVerificationError when a header is missing, the timestamp is not an integer or
 *   is more than `toleranceSeconds` away from now, no signature verifies, the key is not a
 *   `whsec_`/`whpk_` key, or the verified body is not a JSON object with a `type`.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  key: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent | PingEvent {
  const verifier = verifierOf(key);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  checkTimestamp(timestamp, options);
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), raw]);
  const verified = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .some(([version, signature]) => {
      if (version !== verifier.version || !signature) return false;
      return verifier.check(content, Buffer.from(signature, 'base64'));
    });
  if (!verified) {
    throw new WebhookVerificationError(
      'invalid_signature',
      `no ${verifier.version} signature in webhook-signature verifies with this key`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    typeof (parsed as { type?: unknown }).type !== 'string'
  ) {
    throw new WebhookVerificationError('invalid_body', 'the body is not an event object');
  }
  return parsed as WebhookEvent | PingEvent;
}

function verifierOf(key: string): Verifier {
  if (key.startsWith(SECRET_PREFIX)) {
    const secret = Buffer.from(key.slice(SECRET_PREFIX.length), 'base64');
    if (secret.length === 0)
      throw new WebhookVerificationError('invalid_key', 'empty whsec_ secret');
    return {
      version: 'v1',
      check: (content, signature) => {
        const expected = createHmac('sha256', secret).update(content).digest();
        return signature.length === expected.length && timingSafeEqual(signature, expected);
      },
    };
  }
  if (key.startsWith(PUBLIC_KEY_PREFIX)) {
    const publicKey = ed25519PublicKey(Buffer.from(key.slice(PUBLIC_KEY_PREFIX.length), 'base64'));
    return {
      version: 'v1a',
      check: (content, signature) =>
        signature.length === 64 && verify(null, content, publicKey, signature),
    };
  }
  throw new WebhookVerificationError(
    'invalid_key',
    'the key must be a whsec_ signing secret or a whpk_ public key',
  );
}

function ed25519PublicKey(raw: Buffer): KeyObject {
  if (raw.length !== 32) {
    throw new WebhookVerificationError('invalid_key', 'a whpk_ key holds 32 bytes of ed25519 key');
  }
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
}

function header(headers: WebhookHeaders, name: string): string {
  let value: string | readonly string[] | null | undefined;
  if (typeof headers.get === 'function') {
    value = (headers as { get(name: string): string | null }).get(name);
  } else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
    const found = Object.keys(record).find((key) => key.toLowerCase() === name);
    value = found === undefined ? undefined : record[found];
  }
  const text = Array.isArray(value) ? value.join(' ') : (value as string | null | undefined);
  if (!text) throw new WebhookVerificationError('missing_header', `missing ${name} header`);
  return text;
}

function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  if (!/^[0-9]{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      'webhook-timestamp is not Unix seconds',
    );
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const sent = Number(timestamp);
  if (now - sent > tolerance) {
    throw new WebhookVerificationError('timestamp_too_old', 'webhook-timestamp is too old');
  }
  if (sent - now > tolerance) {
    throw new WebhookVerificationError('timestamp_too_new', 'webhook-timestamp is in the future');
  }
}
