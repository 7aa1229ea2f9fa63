import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { AppConfig } from '../../config/app-config';
import { assertLiteralHostAllowed, guardedLookup, RefusedAddressError } from './address-policy';
import { signatureHeader } from './message-signer';
import { outboundProxy, ProxyTunnelError, proxyConnector } from './proxy-tunnel';
import { retryAfterOfResponse } from './retry-after';
import { RequestShaper, type ShapedRequest } from './request-shaper';
import type { RequestMethod } from './request-method';

/** A signed message to send: `id` is the `webhook-id`, `body` the exact bytes sent and signed. */
export interface WebhookMessage {
  id: string;
  body: string;
}

/** The outcome of one HTTP attempt (docs/webhooks.md). */
export interface SendResult {
  attemptedAt: Date;
  /** To the response status, or to the failure; the full limit for a timeout. */
  durationMs: number;
  statusCode: number | null;
  /** A 2xx within the time limit. */
  success: boolean;
  error: string | null;
  /** At most 1 KiB of the response body. */
  responseExcerpt: string | null;
  /**
   * The response's headers as received, bounded by {@link boundedResponseHeaders}; null when no
   * response came. Absent (treated as null) in results built by hand.
   */
  responseHeaders?: Record<string, string> | null;
  /**
   * The delay a failed response asked for with `Retry-After`, in ms (RFC 9110: delta-seconds,
   * or an HTTP-date measured from the response's `Date`); null (or absent) when it carried no
   * valid one, succeeded or never came. Used for 429 and 503
   * (docs/webhooks.md#busy-receivers-429-and-503).
   */
  retryAfterMs?: number | null;
}

/** A request of one attempt, signed and ready to send ({@link WebhookSender.sign}). */
export interface SignedRequest {
  /** POST, or what the endpoint's transformation chose (docs/webhooks.md#transformations). */
  method: RequestMethod;
  url: string;
  /** Exactly the headers sent, full signatures included: never store or show these as is. */
  headers: Record<string, string>;
  /** The exact bytes sent and signed. */
  body: string;
  /** Why the message could not be signed (it is then not sent); null normally. */
  signingError: string | null;
}

export type { RequestMethod } from './request-method';

/** The `User-Agent` of every webhook request (docs/webhooks.md#payloads). */
export const WEBHOOK_USER_AGENT = 'campaign-api-webhooks/1';

/** How many characters of each signature the delivery log keeps (docs/dashboard.md#routes). */
export const LOGGED_SIGNATURE_CHARS = 12;

const DEFAULT_SHAPE = { method: 'POST', contentType: 'application/json' } as const;
const EXCERPT_BYTES = 1024;
const MAX_ERROR_LENGTH = 500;

/**
 * An empty record of headers with no prototype: a header named `__proto__` or `constructor` is
 * an entry of its own like any other, never the object's prototype or a method
 * (docs/webhooks.md#custom-headers).
 */
export function headerRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** At most this many response headers are kept per attempt (docs/dashboard.md#attempt-detail). */
export const MAX_RESPONSE_HEADERS = 50;
/** Header names longer than this are dropped; values are cut to {@link MAX_RESPONSE_HEADER_VALUE}. */
const MAX_RESPONSE_HEADER_NAME = 100;
/** Characters kept of each response header's value (then `…`). */
export const MAX_RESPONSE_HEADER_VALUE = 256;
/** Characters (names and values) kept of all response headers together. */
const MAX_RESPONSE_HEADERS_CHARS = 4096;
/** Response headers whose values are the receiver's secrets: kept by name, value replaced. */
const REDACTED_RESPONSE_HEADERS = new Set(['set-cookie', 'authorization', 'proxy-authenticate']);

/**
 * The response headers an attempt keeps (docs/dashboard.md#attempt-detail): in the order
 * received, names lower-cased, repeated headers joined with `, `; at most
 * {@link MAX_RESPONSE_HEADERS} of them and 4,096 characters in all, each value cut to
 * {@link MAX_RESPONSE_HEADER_VALUE} characters with `…`; `set-cookie` and credentials replaced
 * by `[redacted]`; NUL characters (which PostgreSQL cannot store) removed. A receiver controls
 * these bytes: the bounds keep one attempt's row small whatever it sends.
 * @param headers undici's response headers (a value may be an array for a repeated header).
 * @returns the headers to store, or null when there are none.
 */
export function boundedResponseHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> | null {
  const kept = headerRecord();
  let count = 0;
  let chars = 0;
  for (const [rawName, rawValue] of Object.entries(headers)) {
    if (rawValue === undefined) continue;
    const name = rawName.toLowerCase().replace(/\u0000/g, '');
    if (name.length === 0 || name.length > MAX_RESPONSE_HEADER_NAME) continue;
    let value = REDACTED_RESPONSE_HEADERS.has(name)
      ? '[redacted]'
      : (Array.isArray(rawValue) ? rawValue.join(', ') : rawValue).replace(/\u0000/g, '');
    if (value.length > MAX_RESPONSE_HEADER_VALUE) {
      value = `${value.slice(0, MAX_RESPONSE_HEADER_VALUE)}…`;
    }
    if (
      count === MAX_RESPONSE_HEADERS ||
      chars + name.length + value.length > MAX_RESPONSE_HEADERS_CHARS
    ) {
      break;
    }
    kept[name] = value;
    count += 1;
    chars += name.length + value.length;
  }
  return count === 0 ? null : kept;
}

/**
 * The headers of a signed request as the delivery log keeps and shows them
 * (docs/dashboard.md#routes, the attempt's detail): all of them, in the order sent, but each
 * `webhook-signature` entry cut to its version, the first {@link LOGGED_SIGNATURE_CHARS}
 * characters of the signature and `…` (`v1,K5oZfzN95Z9U…`, `v1a,hnO3f9T8Ytu9…`). Enough to
 * compare with what a receiver got; never a whole signature, which would let anyone who reads the log replay the
 * message within the receiver's tolerance.
 */
export function loggedHeaders(headers: Record<string, string>): Record<string, string> {
  const logged = headerRecord();
  for (const [name, value] of Object.entries(headers)) {
    logged[name] = name === 'webhook-signature' ? truncateSignatures(value) : value;
  }
  return logged;
}

function truncateSignatures(value: string): string {
  if (value === '') return value;
  return value
    .split(' ')
    .map((entry) => {
      const comma = entry.indexOf(',');
      const version = comma < 0 ? '' : entry.slice(0, comma + 1);
      const signature = comma < 0 ? entry : entry.slice(comma + 1);
      return `${version}${signature.slice(0, LOGGED_SIGNATURE_CHARS)}…`;
    })
    .join(' ');
}

/**
 * Sends signed webhook messages (docs/webhooks.md) over a pooled undici agent: Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature` with one `v1,` signature
 * per valid `whsec_` secret and one `v1a,` ed25519 signature per valid `whsk_` key), a
 * `WEBHOOK_TIMEOUT_MS` limit, no redirects followed, and the address policy of
 * `WEBHOOK_ALLOW_PRIVATE_URLS` applied to the resolved address the socket uses, and with
 * `WEBHOOK_PROXY_URL` every connection tunnelled through that proxy to the checked address.
 * Never throws: every failure is a {@link SendResult}.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly allowPrivate: boolean;

  constructor(
    config: AppConfig,
    // Absent only where a test builds a sender by hand (it then shapes nothing).
    @Optional() private readonly shaper?: RequestShaper,
  ) {
    this.timeoutMs = config.webhookTimeoutMs;
    this.allowPrivate = config.webhookAllowPrivateUrls;
    this.agent = new Agent({
      // Through WEBHOOK_PROXY_URL the connector applies the same address policy to the target
      // before it asks for a tunnel (docs/webhooks.md#outbound-proxy).
      connect: config.webhookProxyUrl
        ? proxyConnector(outboundProxy(config.webhookProxyUrl), this.allowPrivate, this.timeoutMs)
        : { lookup: guardedLookup(this.allowPrivate), timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  /**
   * Runs an endpoint's transformation on a message ({@link RequestShaper.shape},
   * docs/webhooks.md#transformations): the request to sign and send, `cancelled`, or the
   * error; null when there is no transformation to run. Sends nothing.
   * @throws TransformationBusyError when this process's transformation budget is used up.
   */
  shape(...args: Parameters<RequestShaper['shape']>): Promise<ShapedRequest | null> {
    if (!this.shaper) throw new Error('this WebhookSender was built without a RequestShaper');
    return this.shaper.shape(...args);
  }

  /** {@link shape} for a batch's messages to one endpoint ({@link RequestShaper.shapeMany}). */
  shapeMany(...args: Parameters<RequestShaper['shapeMany']>): Promise<ShapedRequest[] | null> {
    if (!this.shaper) throw new Error('this WebhookSender was built without a RequestShaper');
    return this.shaper.shapeMany(...args);
  }

  /**
   * POSTs `message` to `url`, signed with each of `secrets` as of now: {@link sign} then
   * {@link sendSigned}.
   * @param secrets `whsec_…` secrets or `whsk_…` keys; during a rotation both the new and the
   *   previous one.
   */
  send(url: string, secrets: string[], message: WebhookMessage): Promise<SendResult> {
    return this.sendSigned(this.sign(url, secrets, message, new Date()));
  }

  /**
   * Builds the request of one attempt (docs/webhooks.md#signing): the Standard Webhooks headers
   * with `webhook-timestamp` = `at` in whole seconds and one signature per key
   * (`signatureHeader`: `v1,` for a `whsec_` secret, `v1a,` for a `whsk_` key). The caller
   * records it ({@link loggedHeaders}) before {@link sendSigned} sends exactly it. Never
   * throws: a message that cannot be signed comes back with `signingError` set.
   * @param secrets `whsec_…` secrets or `whsk_…` keys; during a rotation both the new and the
   *   previous one.
   * @param shape the method and content type when a transformation set them
   *   (docs/webhooks.md#transformations): the body signed is still exactly the body sent.
   */
  sign(
    url: string,
    secrets: string[],
    message: WebhookMessage,
    at: Date,
    shape: { method: RequestMethod; contentType: string } = DEFAULT_SHAPE,
  ): SignedRequest {
    const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
    let signature = '';
    let signingError: string | null = null;
    try {
      signature = signatureHeader(secrets, message.id, timestamp, message.body);
    } catch (error) {
      signingError = `could not sign: ${(error as Error)?.message ?? String(error)}`.slice(
        0,
        MAX_ERROR_LENGTH,
      );
    }
    return {
      method: shape.method,
      url,
      headers: {
        'content-type': shape.contentType,
        'user-agent': WEBHOOK_USER_AGENT,
        'webhook-id': message.id,
        'webhook-timestamp': String(timestamp.getTime() / 1000),
        'webhook-signature': signature,
      },
      body: message.body,
      signingError,
    };
  }

  /** POSTs a request built by {@link sign}, as is. Never throws: every failure is a result. */
  async sendSigned(signed: SignedRequest): Promise<SendResult> {
    const attemptedAt = new Date();
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    if (signed.signingError !== null) {
      return {
        attemptedAt,
        durationMs: 0,
        statusCode: null,
        success: false,
        error: signed.signingError,
        responseExcerpt: null,
      };
    }
    try {
      assertLiteralHostAllowed(new URL(signed.url), this.allowPrivate);
      const response = await request(signed.url, {
        method: signed.method,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: signed.headers,
        body: signed.body,
      });
      const durationMs = elapsed();
      const success = response.statusCode >= 200 && response.statusCode < 300;
      const retryAfterMs = success ? null : retryAfterOfResponse(response.headers, Date.now());
      const responseExcerpt = await readExcerpt(response.body);
      return {
        attemptedAt,
        durationMs,
        statusCode: response.statusCode,
        success,
        error: success ? null : `HTTP ${response.statusCode}`,
        responseExcerpt,
        responseHeaders: boundedResponseHeaders(response.headers),
        retryAfterMs,
      };
    } catch (error) {
      const timedOut = isTimeout(error);
      return {
        attemptedAt,
        durationMs: timedOut ? this.timeoutMs : elapsed(),
        statusCode: null,
        success: false,
        error: timedOut ? `timed out after ${this.timeoutMs} ms` : describeError(error),
        responseExcerpt: null,
      };
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}

async function readExcerpt(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= EXCERPT_BYTES) break;
    }
  } catch {
    // A body cut short still leaves what arrived.
  } finally {
    body.destroy();
  }
  if (size === 0) return null;
  // Drop a multi-byte character cut in half at the limit, and NULs PostgreSQL cannot store.
  const text = Buffer.concat(chunks)
    .subarray(0, EXCERPT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return text.replace(/\u0000/g, '');
}

function isTimeout(error: unknown): boolean {
  const e = error as { name?: string; code?: string };
  return (
    e?.name === 'TimeoutError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_CONNECT_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT'
  );
}

function describeError(error: unknown): string {
  if (error instanceof RefusedAddressError || error instanceof ProxyTunnelError) {
    return error.message;
  }
  const e = error as {
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(error);
  const text =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code && !message.includes(code)
        ? `${code}: ${message}`
        : message;
  return text.slice(0, MAX_ERROR_LENGTH);
}
