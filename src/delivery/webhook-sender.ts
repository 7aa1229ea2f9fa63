import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { AppConfig } from '../config/app-config';
import { assertLiteralHostAllowed, guardedLookup, RefusedAddressError } from './address-policy';

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
}

const EXCERPT_BYTES = 1024;
const MAX_ERROR_LENGTH = 500;

/**
 * Sends signed webhook messages (docs/webhooks.md) over a pooled undici agent: Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature` with one `v1,` signature
 * per valid secret), a `WEBHOOK_TIMEOUT_MS` limit, no redirects followed, and the address
 * policy of `WEBHOOK_ALLOW_PRIVATE_URLS` applied to the resolved address the socket uses.
 * Never throws: every failure is a {@link SendResult}.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly allowPrivate: boolean;

  constructor(config: AppConfig) {
    this.timeoutMs = config.webhookTimeoutMs;
    this.allowPrivate = config.webhookAllowPrivateUrls;
    this.agent = new Agent({
      connect: { lookup: guardedLookup(this.allowPrivate), timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  /**
   * POSTs `message` to `url`, signed with each of `secrets`.
   * @param secrets `whsec_…` secrets; during a rotation both the new and the previous one.
   */
  async send(url: string, secrets: string[], message: WebhookMessage): Promise<SendResult> {
    const attemptedAt = new Date();
    const timestamp = new Date(Math.floor(attemptedAt.getTime() / 1000) * 1000);
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    try {
      assertLiteralHostAllowed(new URL(url), this.allowPrivate);
      const signature = secrets
        .map((secret) => new Webhook(secret).sign(message.id, timestamp, message.body))
        .join(' ');
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'campaign-api-webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp.getTime() / 1000),
          'webhook-signature': signature,
        },
        body: message.body,
      });
      const durationMs = elapsed();
      const success = response.statusCode >= 200 && response.statusCode < 300;
      const responseExcerpt = await readExcerpt(response.body);
      return {
        attemptedAt,
        durationMs,
        statusCode: response.statusCode,
        success,
        error: success ? null : `HTTP ${response.statusCode}`,
        responseExcerpt,
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
  if (error instanceof RefusedAddressError) return error.message;
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
