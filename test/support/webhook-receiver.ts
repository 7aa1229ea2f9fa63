import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The headers as on the wire, name and value in turn (Node's `headers` drops `__proto__`). */
  rawHeaders: string[];
  body: string;
  receivedAt: number;
}

/** How the receiver answers: a status, after an optional delay, or a redirect, with extra headers. */
export type ReceiverBehaviour = {
  status: number;
  delayMs?: number;
  location?: string;
  body?: string;
  /** Response headers to add (`Retry-After`, …). */
  headers?: Record<string, string>;
};

/**
 * A real local HTTP webhook receiver for tests (loopback only). It records every request and
 * answers with the behaviour set by the test, which may change between requests.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  behaviour: ReceiverBehaviour | ((index: number) => ReceiverBehaviour) = { status: 204 };
  private server?: Server;
  private readonly waiters: Array<() => void> = [];
  private readonly pending = new Set<ServerResponse>();

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const index = this.received.length;
        this.received.push({
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        });
        this.waiters.splice(0).forEach((wake) => wake());
        const b = typeof this.behaviour === 'function' ? this.behaviour(index) : this.behaviour;
        const answer = () => {
          this.pending.delete(res);
          if (b.location) res.setHeader('location', b.location);
          for (const [name, value] of Object.entries(b.headers ?? {})) res.setHeader(name, value);
          res.statusCode = b.status;
          res.end(b.body ?? '');
        };
        this.pending.add(res);
        if (b.delayMs) setTimeout(answer, b.delayMs).unref();
        else answer();
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 15_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} webhooks, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received.slice(0, count);
  }

  async stop(): Promise<void> {
    for (const res of this.pending) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

/**
 * Verifies a received webhook with the `standardwebhooks` package, as a customer would.
 * @returns the parsed body. @throws when the signature does not verify with `secret`.
 */
export function verifyWebhook(
  secret: string,
  webhook: ReceivedWebhook,
): { type: string; timestamp: string; data: Record<string, unknown> } {
  const headers = {
    'webhook-id': String(webhook.headers['webhook-id']),
    'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
    'webhook-signature': String(webhook.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(webhook.body, headers) as {
    type: string;
    timestamp: string;
    data: Record<string, unknown>;
  };
}

/** The receivers a test file starts: `start` one more, `stopAll` in `afterAll`. */
export function receiverPool(): {
  start: () => Promise<WebhookReceiver>;
  stopAll: () => Promise<void>;
} {
  const started: WebhookReceiver[] = [];
  return {
    start: async () => {
      const receiver = await new WebhookReceiver().start();
      started.push(receiver);
      return receiver;
    },
    stopAll: async () => {
      await Promise.all(started.map((receiver) => receiver.stop()));
    },
  };
}
