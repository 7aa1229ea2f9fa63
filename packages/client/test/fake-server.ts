import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake server received. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers one request; may write the response, destroy the socket, or never answer. */
export type Handler = (request: Received, res: ServerResponse) => void;

/** A node:http server on a free loopback port that records requests and runs `handler`. */
export class FakeServer {
  readonly received: Received[] = [];
  private server: Server | undefined;
  handler: Handler = (_req, res) => json(res, 404, { error: 'not_found', message: 'nothing here' });

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const received = { method: req.method!, path: req.url!, headers: req.headers, body };
        this.received.push(received);
        this.handler(received, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The requests to `path`. */
  to(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }
}

/** Writes a JSON answer. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}
