import type { FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

/** The id of the request whose code is running (docs/operations.md#logs). */
const currentRequestId = new AsyncLocalStorage<string>();

/**
 * pino `mixin`: adds `request_id` to every line written while a request's code runs (its
 * hooks, guards, handler and whatever they await), read when a line is written rather than
 * bound to a child logger made for every request, most of which log nothing of their own.
 */
export function requestIdMixin(): { request_id?: string } {
  const requestId = currentRequestId.getStore();
  return requestId === undefined ? {} : { request_id: requestId };
}

/** When a request's `request completed` line is written (docs/operations.md#logs). */
export interface RequestLogPolicy {
  /** Share of ordinary requests (2xx/3xx, not slow) logged, 0 to 1 (`LOG_REQUEST_SAMPLE_RATE`). */
  sampleRate: number;
  /** A request taking this long (ms) or longer is always logged (`LOG_SLOW_REQUEST_MS`). */
  slowMs: number;
}

/**
 * Whether a finished request is logged: always when it failed (status ≥ 400) or was slow,
 * otherwise with probability `sampleRate` (`random` is in [0, 1)).
 */
export function shouldLogRequest(
  statusCode: number,
  elapsedMs: number,
  policy: RequestLogPolicy,
  random: () => number = Math.random,
): boolean {
  return (
    statusCode >= 400 ||
    elapsedMs >= policy.slowMs ||
    policy.sampleRate >= 1 ||
    (policy.sampleRate > 0 && random() < policy.sampleRate)
  );
}

/**
 * Request logging at the Fastify level (docs/operations.md#logs), in place of nestjs-pino's
 * pino-http middleware: every hook, guard and handler of a request runs with its id as the
 * current request (so each line the application writes carries `request_id`, through
 * {@link requestIdMixin}, which the root logger must have as its `mixin`), and a `request
 * completed` line (`req`, `res`, `responseTime`, at `error` for 5xx) is written through the
 * root logger (`PinoLogger.root`) when {@link shouldLogRequest} says so. Install first, before
 * any other `onRequest` hook.
 */
export function installRequestLogging(fastify: FastifyInstance, policy: RequestLogPolicy): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    currentRequestId.run(request.id, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const logger = PinoLogger.root as Logger;
    const statusCode = reply.statusCode;
    const level = statusCode >= 500 ? 'error' : 'info';
    const elapsed = reply.elapsedTime;
    if (logger.isLevelEnabled(level) && shouldLogRequest(statusCode, elapsed, policy)) {
      logger[level](
        {
          request_id: request.id,
          req: request.raw,
          res: reply.raw,
          responseTime: Math.round(elapsed),
        },
        'request completed',
      );
    }
    done();
  });
}
