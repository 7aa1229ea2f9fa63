import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { BODY_LIMIT_BYTES } from '../common/http-conventions';
import type { AuthPrincipal } from './auth-principal';
import type { BearerAuthenticator } from './bearer-authenticator.service';

/** Routes under this prefix need a bearer token unless marked {@link Public}. */
const BEARER_PREFIX = '/api/v1/';
/**
 * Largest body of an unauthenticated request that is still read, so that its syntax errors
 * keep answering 400 before the 401 (the order of docs/api.md#errors); a larger one is refused unread.
 */
export const UNAUTHENTICATED_BODY_LIMIT_BYTES = 64 * 1024;

/** Counts failed authentications per client IP (docs/security.md "Failed authentications"). */
export interface FailedAuthenticationLimiter {
  /** Counts one failure of `ip`; returns the seconds to wait when over the limit, else 0. */
  hit(ip: string): Promise<number>;
}

type AuthenticatedRequest = FastifyRequest & { user?: AuthPrincipal };

const deferredFailures = new WeakMap<FastifyRequest, unknown>();

function declaredBodyLength(request: FastifyRequest): number | null {
  const header = request.headers['content-length'];
  if (header === undefined) return request.headers['transfer-encoding'] ? null : 0;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/**
 * Authenticates bearer routes in Fastify's `onRequest`, before the body is read
 * (docs/security.md): a request without a valid token costs no body parsing, and failed
 * authentications are counted per client IP (429 `rate_limited` over the limit). To keep the
 * contract's order (413/415/JSON syntax 400 before 401), the 401 of a request whose body is
 * at most {@link UNAUTHENTICATED_BODY_LIMIT_BYTES} is answered after parsing; a larger or
 * unsized body is refused at once, unread, and its connection closed. The global
 * `BearerAuthGuard` then only checks that `request.user` is set.
 */
export function installBearerAuthentication(
  fastify: FastifyInstance,
  authenticator: BearerAuthenticator,
  limiter: FailedAuthenticationLimiter,
): void {
  fastify.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { public?: boolean };
    if (route.url.startsWith(BEARER_PREFIX) && !config.public) {
      route.config = { ...config, bearer: true } as typeof route.config;
    }
  });

  fastify.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config as { bearer?: boolean } | undefined;
    if (!config?.bearer) return;
    try {
      (request as AuthenticatedRequest).user = await authenticator.authenticate(request);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      const retryAfter = await limiter.hit(request.ip);
      const failure =
        retryAfter > 0
          ? new ApiError(
              429,
              'rate_limited',
              `Too many failed authentications from this address; retry after ${retryAfter} s`,
              { 'Retry-After': String(retryAfter) },
            )
          : error;
      const length = declaredBodyLength(request);
      if (length !== null && length > BODY_LIMIT_BYTES) return; // Fastify answers 413, unread.
      if (length !== null && length <= UNAUTHENTICATED_BODY_LIMIT_BYTES) {
        deferredFailures.set(request, failure);
        return;
      }
      void reply.header('connection', 'close');
      throw failure;
    }
  });

  // Registered after the body checks of installHttpConventions, so they answer first.
  fastify.addHook('preValidation', async (request) => {
    const failure = deferredFailures.get(request);
    if (failure !== undefined) throw failure;
  });
}
