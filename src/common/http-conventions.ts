import { randomUUID } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawRequestDefaultExpression,
} from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, codeForStatus } from './api-error';

/** Largest request body accepted, in bytes (CONTRACT 2: bodies over 16 MiB get 413). */
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** Deepest nesting of arrays and objects a body may have (an upload needs 3). */
export const MAX_BODY_DEPTH = 32;

/** Whether a parsed JSON value nests arrays/objects deeper than `limit` (iterative: no stack risk). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

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
 * a JSON body must be an object nested at most {@link MAX_BODY_DEPTH} deep (400). Errors raised here reach the global filter, so they
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
    if (nestsDeeperThan(body, MAX_BODY_DEPTH)) {
      throw ApiError.badRequest(
        `Request body nests arrays and objects more than ${MAX_BODY_DEPTH} deep`,
      );
    }
  });
}

/**
 * Fastify `frameworkErrors`: errors Fastify raises before routing (a malformed URL, a path
 * parameter over the length limit) leave in the `{error, message}` envelope too.
 */
export function frameworkErrorHandler(
  error: { statusCode?: number; message: string },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  void reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send({
      error: codeForStatus(status),
      message: status === 414 ? 'A path segment is too long' : 'The request URL is malformed',
    });
}

/**
 * Node's `clientError` (e.g. headers over 16 KiB, a malformed request line), answered on the
 * raw socket in the envelope instead of Node's default body.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    error: 'bad_request',
    message: tooLarge ? 'Request headers are too large' : 'Malformed HTTP request',
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
