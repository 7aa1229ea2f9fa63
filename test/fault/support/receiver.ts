import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { listenOnPort } from './fault-proxy';

/** One request the receiver got, recorded when its headers arrive (whatever it then answers). */
export interface ReceivedCopy {
  webhookId: string;
  receivedAt: number;
  /** The status answered; null when none was (the receiver went down meanwhile). */
  status: number | null;
  /** Whether the signature verified with one of the endpoint secrets; null until the body is in. */
  verified: boolean | null;
  type?: string;
  /** The verified event's `data` (null until the body is in, or when it did not verify). */
  data?: Record<string, unknown> | null;
  /** When the event was recorded (its `timestamp`, ms since the epoch), once verified. */
  recordedAt?: number;
  /** When the status was answered (Date.now()); null while unanswered. */
  answeredAt?: number | null;
}

/** How to answer one copy, decided once its body is in (see {@link FaultReceiver.policy}). */
export interface ReceiverAnswer {
  status?: number;
  delayMs?: number;
}

/** `ok`: 2xx; `error`: 500; `down`: not listening (connections refused). */
export type ReceiverMode = 'ok' | 'error' | 'down';

/**
 * The webhook receiver of a scenario (node:http on 127.0.0.1). It records every request,
 * verifies each signature with the `standardwebhooks` package as a customer would, and
 * answers as the scenario sets: 2xx, 500, or nothing at all (down), after `delayMs`.
 */
export class FaultReceiver {
  readonly copies: ReceivedCopy[] = [];
  /** The signing secrets of the endpoints that send here (`whsec_…`). */
  readonly secrets: string[] = [];
  delayMs = 0;
  /**
   * Per-copy answers while the mode is `ok`: status and delay for each copy (its signature
   * checked and `data` read), overriding {@link okStatus} and {@link delayMs}.
   */
  policy?: (copy: ReceivedCopy) => ReceiverAnswer;
  okStatus = 204;
  errorStatus = 500;
  private mode: ReceiverMode = 'ok';
  private port = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly pending = new Set<ServerResponse>();

  constructor(readonly name = 'receiver') {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  get currentMode(): ReceiverMode {
    return this.mode;
  }

  async start(): Promise<this> {
    await this.listen();
    return this;
  }

  /** Switches behaviour; `down` closes the listener and every connection, others listen again. */
  async setMode(mode: ReceiverMode): Promise<void> {
    this.mode = mode;
    if (mode === 'down') await this.close();
    else await this.listen();
  }

  /** Copies received so far. */
  get count(): number {
    return this.copies.length;
  }

  /** Copies per webhook-id. */
  countsById(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const copy of this.copies)
      counts.set(copy.webhookId, (counts.get(copy.webhookId) ?? 0) + 1);
    return counts;
  }

  /** Distinct webhook-ids answered with a 2xx at least once. */
  acceptedIds(): Set<string> {
    return new Set(
      this.copies.filter((c) => c.status !== null && c.status < 300).map((c) => c.webhookId),
    );
  }

  /** Resolves once `count` copies arrived; rejects after `timeoutMs`. */
  async waitForCopies(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.copies.length < count) {
      if (Date.now() > deadline) {
        throw new Error(
          `${this.name}: expected ${count} requests within ${timeoutMs} ms, got ${this.copies.length}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async stop(): Promise<void> {
    await this.close();
  }

  private handle(req: import('node:http').IncomingMessage, res: ServerResponse): void {
    const copy: ReceivedCopy = {
      webhookId: String(req.headers['webhook-id'] ?? ''),
      receivedAt: Date.now(),
      status: null,
      verified: null,
    };
    this.copies.push(copy);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      copy.verified = this.verify(req.headers, body, copy);
      const decided = this.mode === 'ok' ? this.policy?.(copy) : undefined;
      const answer = () => {
        this.pending.delete(res);
        if (res.destroyed) return;
        const status =
          this.mode === 'error' ? this.errorStatus : (decided?.status ?? this.okStatus);
        copy.status = status;
        copy.answeredAt = Date.now();
        res.statusCode = status;
        res.end(status === 204 ? undefined : JSON.stringify({ received: status < 300 }));
      };
      this.pending.add(res);
      const delayMs = decided?.delayMs ?? this.delayMs;
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  }

  private verify(
    headers: import('node:http').IncomingHttpHeaders,
    body: string,
    copy: ReceivedCopy,
  ): boolean {
    for (const secret of this.secrets) {
      try {
        const event = new Webhook(secret).verify(body, {
          'webhook-id': String(headers['webhook-id']),
          'webhook-timestamp': String(headers['webhook-timestamp']),
          'webhook-signature': String(headers['webhook-signature']),
        }) as { type?: string; timestamp?: string; data?: Record<string, unknown> };
        copy.type = event.type;
        copy.data = event.data ?? null;
        if (event.timestamp) copy.recordedAt = Date.parse(event.timestamp);
        return true;
      } catch {
        // try the next secret
      }
    }
    return false;
  }

  private async listen(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await listenOnPort(server, this.port);
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  private async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const res of this.pending) res.destroy();
    this.pending.clear();
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
