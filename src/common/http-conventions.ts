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
import { looksLikeSecret } from './logging';

/** Largest request body accepted, in bytes (docs/api.md#errors: bodies over 16 MiB get 413). */
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
/** Deepest nesting of arrays and objects a body may have (an upload needs 3). */
export const MAX_BODY_DEPTH = 32;

/** The media type of a file streamed as a request's raw body. */
export const FILE_UPLOAD_MEDIA_TYPE = 'application/octet-stream';

/**
 * Routes (Fastify route URLs) whose body is a file streamed raw as
 * {@link FILE_UPLOAD_MEDIA_TYPE}, never buffered nor parsed (docs/dashboard.md#spreadsheet-imports).
 */
export const FILE_UPLOAD_ROUTES: ReadonlySet<string> = new Set([
  '/dashboard/api/campaigns/:campaign_id/spreadsheet-imports',
  // A suppression CSV (docs/dashboard.md#privacy): read up to its own bound, never parsed.
  '/dashboard/api/privacy/suppressions/import',
]);

/**
 * A request's declared `Content-Length`, in bytes, for a {@link FILE_UPLOAD_ROUTES} route to
 * refuse a file over its bound before reading it; null without a well-formed one.
 */
export function declaredContentLength(request: FastifyRequest): number | null {
  const header = request.headers['content-length'];
  return typeof header === 'string' && /^\d{1,15}$/.test(header) ? Number(header) : null;
}

/** Whether a request posts a file to a {@link FILE_UPLOAD_ROUTES} route. */
function isFileUpload(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return (
    request.method === 'POST' &&
    FILE_UPLOAD_ROUTES.has(request.routeOptions.url ?? '') &&
    typeof type === 'string' &&
    type.split(';')[0].trim().toLowerCase() === FILE_UPLOAD_MEDIA_TYPE
  );
}

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
 * across proxies) or makes a UUID. Well-formed means 1–64 characters of `[A-Za-z0-9._:-]`
 * that do not look like a secret ({@link looksLikeSecret}: no `capi_`/`whsec_`, not a JWT),
 * since the id is logged on every line and echoed in the response. The id is also put on the
 * raw request for pino-http.
 *
 * @returns the id Fastify gives the request.
 */
export function generateRequestId(raw: RawRequestDefaultExpression): string {
  const incoming = raw.headers['x-request-id'];
  const id =
    typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) && !looksLikeSecret(incoming)
      ? incoming
      : randomUUID();
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

/** Whether the request says it has no body: `Content-Length: 0`, or neither length nor chunks. */
function announcesNoBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    length === '0' || (length === undefined && request.headers['transfer-encoding'] === undefined)
  );
}

/** Whether the request speaks HTTP/1.1 or later, where a Host header is mandatory (RFC 9112 §3.2). */
function requiresHost(request: FastifyRequest): boolean {
  const { httpVersionMajor, httpVersionMinor } = request.raw;
  return httpVersionMajor > 1 || (httpVersionMajor === 1 && httpVersionMinor >= 1);
}

/**
 * Installs the wire conventions of docs/api.md#conventions that sit below Nest: every response carries
 * `X-Request-Id`; an HTTP/1.1 request must have a Host header (400; Node's own check, which
 * answers without a body, is off); a POST to a known route must be JSON (415, checked before
 * the body is read); a JSON body must be an object nested at most {@link MAX_BODY_DEPTH} deep
 * (400); only a {@link FILE_UPLOAD_ROUTES} route also takes a raw file. Errors raised here reach the global filter, so they leave in the `{error, message}`
 * envelope like every other error.
 */
export function installHttpConventions(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    if (request.raw.headers.host === undefined && requiresHost(request)) {
      throw ApiError.badRequest('The Host header is required');
    }
    if (request.method === 'DELETE' && announcesNoBody(request)) {
      // A DELETE carries no body; a client that still labels its empty one as JSON must not
      // get 400 "empty body" before the route's own checks (401, 403, 404) have answered.
      delete request.headers['content-type'];
    }
    const routeKnown = request.routeOptions.url !== undefined;
    if (
      routeKnown &&
      hasBody(request) &&
      !isJsonContentType(request.headers['content-type']) &&
      !isFileUpload(request)
    ) {
      throw new ApiError(415, 'unsupported_media_type', 'Content-Type must be application/json');
    }
  });
  // A file upload's body reaches its route as the request stream itself: never held whole.
  fastify.addContentTypeParser(FILE_UPLOAD_MEDIA_TYPE, (_request, payload, done) =>
    done(null, payload),
  );
  fastify.addHook('preValidation', async (request) => {
    if (!hasBody(request) || request.routeOptions.url === undefined || isFileUpload(request))
      return;
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

/** The status and envelope `clientErrorHandler` answers a Node client error with. */
function clientErrorResponse(code: string | undefined): {
  status: number;
  error: string;
  message: string;
} {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, error: 'bad_request', message: 'Request headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        error: 'request_timeout',
        message: 'The request did not arrive in time; the connection is closed',
      };
    default:
      return { status: 400, error: 'bad_request', message: 'Malformed HTTP request' };
  }
}

/**
 * Node's `clientError` (e.g. headers over 16 KiB, a malformed request line, a request that
 * does not arrive within `HTTP_REQUEST_TIMEOUT_MS`), answered on the raw socket in the
 * envelope instead of Node's default body, with `Connection: close`: 431 or 400
 * `bad_request`, or 408 `request_timeout` for a timeout.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return;
  // A response already under way (e.g. an early 415 while the body still arrives) must not
  // be followed by a second one on the same socket: just close it.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, error: code, message } = clientErrorResponse(error.code);
  const body = JSON.stringify({ error: code, message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
