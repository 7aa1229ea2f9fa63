import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, codeForStatus, ErrorCode, ErrorEnvelope } from './api-error';
import { isDatabaseUnavailableError } from './database-errors';
import { DomainError, type DomainErrorCode } from './domain-error';
import { redactUrl } from './logging';

/** Status, headers and envelope for any thrown value; used by the Nest filter and Fastify's error handler. */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorEnvelope;
}

const FASTIFY_ERROR_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is larger than 16 MiB',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty; expected a JSON object',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
};

/**
 * How the HTTP API answers a domain error (docs/architecture.md#errors). A route may map one
 * itself first where the contract says otherwise (a campaign that no longer exists is 403 on
 * campaign routes, docs/api.md#errors).
 */
const HTTP_FOR_DOMAIN_ERROR: Record<DomainErrorCode, { status: number; code: ErrorCode }> = {
  invalid_input: { status: 422, code: 'validation_failed' },
  not_found: { status: 404, code: 'not_found' },
  idempotency_conflict: { status: 409, code: 'idempotency_conflict' },
  state_conflict: { status: 409, code: 'conflict' },
  already_exists: { status: 409, code: 'conflict' },
};

/**
 * Maps a thrown value to the `{error, message}` envelope of docs/api.md#errors. Unknown faults become
 * a generic 500 (the caller logs them), PostgreSQL outages 503; no stack, SQL or secret is
 * ever part of the body.
 */
export function toErrorResponse(exception: unknown): ErrorResponse {
  if (exception instanceof ApiError) {
    return {
      status: exception.status,
      headers: exception.headers,
      body: { error: exception.code, message: exception.message },
    };
  }
  if (exception instanceof DomainError) {
    const { status, code } = HTTP_FOR_DOMAIN_ERROR[exception.code];
    return { status, headers: {}, body: { error: code, message: exception.message } };
  }
  if (isDatabaseUnavailableError(exception)) {
    return {
      status: 503,
      headers: { 'Retry-After': '5' },
      body: { error: 'service_unavailable', message: 'The database is unavailable; retry shortly' },
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 503) {
      // Terminus reports a failed readiness check this way.
      return {
        status,
        headers: { 'Retry-After': '5' },
        body: {
          error: 'service_unavailable',
          message: 'A dependency of the service is unavailable',
        },
      };
    }
    if (status < 500) {
      const message = status === 404 ? 'No route matches this method and path' : exception.message;
      return { status, headers: {}, body: { error: codeForStatus(status), message } };
    }
  }
  const fastifyError = exception as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (
    typeof fastifyError?.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    const status = fastifyError.statusCode;
    const code = typeof fastifyError.code === 'string' ? fastifyError.code : '';
    const message =
      FASTIFY_ERROR_MESSAGES[code] ??
      (exception instanceof SyntaxError
        ? 'Request body is not valid JSON'
        : codeForStatus(status).replace(/_/g, ' '));
    return { status, headers: {}, body: { error: codeForStatus(status), message } };
  }
  return {
    status: 500,
    headers: {},
    body: { error: 'internal_error', message: 'An unexpected error occurred; it has been logged' },
  };
}

/** Whether the client aborted the request or closed its connection before the answer. */
function clientWentAway(request: FastifyRequest): boolean {
  const raw = request.raw as FastifyRequest['raw'] & { aborted?: boolean };
  return raw.aborted === true || raw.socket?.destroyed === true;
}

function errorMessage(exception: unknown): string {
  return exception instanceof Error ? exception.message : String(exception);
}

/**
 * Sends the envelope for `exception` on `reply`, logging 5xx faults with the request id.
 * Implements docs/api.md#errors for every response the service makes.
 */
export function sendError(
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Logger,
): void {
  const where = { request_id: request.id, method: request.method, url: redactUrl(request.url) };
  if (clientWentAway(request)) {
    // Not a fault of ours nor of a dependency: nobody is left to answer.
    logger.log({ ...where, reason: errorMessage(exception) }, 'client closed the connection');
    return;
  }
  const { status, headers, body } = toErrorResponse(exception);
  if (status === 503) {
    logger.warn({ ...where, reason: errorMessage(exception) }, 'dependency unavailable');
  } else if (status >= 500) {
    const err = exception instanceof Error ? exception : new Error(String(exception));
    logger.error(
      { ...where, err: { name: err.name, message: err.message, stack: err.stack } },
      'unhandled error',
    );
  }
  void reply.status(status).headers(headers).send(body);
}

/** The one global exception filter: everything thrown inside Nest leaves as `{error, message}`. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorEnvelope');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(
      exception,
      http.getRequest<FastifyRequest>(),
      http.getResponse<FastifyReply>(),
      this.logger,
    );
  }
}
