import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The security headers `helmet` sets for `options`, worked out once: helmet is run against a
 * response that only records what is set, so the result is exactly helmet's (its defaults,
 * plus `options`), without parsing the options again on every request.
 *
 * @returns header name (lower case) → value.
 * @throws Error when helmet rejects the options (at start-up).
 */
export function securityHeaders(options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return recorder;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    (error?: unknown) => {
      if (error) throw error;
    },
  );
  return headers;
}

/**
 * Sends helmet's headers for `options` on every response (docs/operations.md#security-headers-and-cors),
 * computed once at start-up by {@link securityHeaders}. Set in `onRequest`, so a later hook
 * or handler may replace one (the dashboard sets its own Content-Security-Policy).
 */
export function installSecurityHeaders(
  fastify: FastifyInstance,
  options: Readonly<HelmetOptions>,
): void {
  const headers = securityHeaders(options);
  fastify.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers);
    done();
  });
}

/**
 * Sends `Cache-Control: no-store` on every response to a request that `isPrivate` picks
 * (docs/security.md#responses-never-stored): answered or refused, whatever hook, guard, filter
 * or handler sent it, so that no browser or proxy cache keeps a response that carries a
 * credential or an account's data. Set in `onSend`, the last step every response of a route
 * goes through; a `Cache-Control` the route set itself is kept.
 *
 * @param isPrivate decides from the request alone (its route and URL); called once per response.
 */
export function installNoStore(
  fastify: FastifyInstance,
  isPrivate: (request: FastifyRequest) => boolean,
): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control') && isPrivate(request)) {
      void reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });
}
