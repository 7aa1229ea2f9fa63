import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, RawRequestDefaultExpression } from 'fastify';
import { ApiError } from './api-error';

/** Largest request body accepted, in bytes (CONTRACT 2: bodies over 16 MiB get 413). */
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify `genReqId`: reuses a well-formed incoming `X-Request-Id` (so ids follow a request
 * across proxies) or makes a UUID. The id is also put on the raw request for pino-http.
 */
export function generateRequestId(raw: RawRequestDefaultExpression): string {
  const incoming = raw.headers['x-request-id'];
  const id =
    typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  (raw as RawRequestDefaultExpression & { id?: string }).id = id;
  return id;
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';', 1)[0].trim().toLowerCase();
  return mediaType === 'application/json';
}

function hasBody(request: FastifyRequest): boolean {
  return ['POST', 'PUT', 'PATCH'].includes(request.method);
}

/**
 * Installs the wire conventions of CONTRACT 1–2 that sit below Nest: every response carries
 * `X-Request-Id`; a POST to a known route must be JSON (415, checked before the body is read);
 * a JSON body must be an object (400). Errors raised here reach the global filter, so they
 * leave in the `{error, message}` envelope like every other error.
 */
export function installHttpConventions(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    const routeKnown = request.routeOptions.url !== undefined;
    if (routeKnown && hasBody(request) && !isJsonContentType(request.headers['content-type'])) {
      throw new ApiError(415, 'unsupported_media_type', 'Content-Type must be application/json');
    }
  });
  fastify.addHook('preValidation', async (request) => {
    if (!hasBody(request) || request.routeOptions.url === undefined) return;
    const body: unknown = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw ApiError.badRequest('Request body must be a JSON object');
    }
  });
}
