import type { FastifyInstance } from 'fastify';

/** How long in-flight requests get to finish once shutdown starts, in ms; then sockets are cut. */
export const HTTP_DRAIN_DEADLINE_MS = 10_000;
const IDLE_SWEEP_INTERVAL_MS = 100;

const drains = new WeakMap<object, HttpDrain>();

/**
 * Drains the HTTP server at shutdown (docs/reliability.md "Shutdown", step 1): stop accepting
 * connections, answer what is in flight with `Connection: close`, and close each keep-alive
 * connection as soon as it is idle, so a client's pooled connection never holds the process.
 */
export class HttpDrain {
  private draining = false;

  constructor(private readonly fastify: FastifyInstance) {
    fastify.addHook('onSend', async (_request, reply) => {
      if (this.draining) void reply.header('connection', 'close');
    });
  }

  /** Whether shutdown has started (responses then carry `Connection: close`). */
  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Stops accepting connections and resolves once every connection has closed: idle ones at
   * once, busy ones after their response, all of them after `deadlineMs` at the latest.
   */
  async drain(deadlineMs = HTTP_DRAIN_DEADLINE_MS): Promise<void> {
    this.draining = true;
    const server = this.fastify.server;
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const sweeper = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_INTERVAL_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
    try {
      server.closeIdleConnections();
      await closed;
    } finally {
      clearInterval(sweeper);
      clearTimeout(deadline);
    }
  }
}

/** Installs the drain's hook on `fastify` (before it is ready) and remembers it for {@link httpDrainOf}. */
export function installHttpDrain(fastify: FastifyInstance): HttpDrain {
  const drain = new HttpDrain(fastify);
  drains.set(fastify, drain);
  return drain;
}

/** The drain installed on `fastify`, if any. */
export function httpDrainOf(fastify: object): HttpDrain | undefined {
  return drains.get(fastify);
}
