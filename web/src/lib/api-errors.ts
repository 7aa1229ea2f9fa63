/** The error body every dashboard API error carries (docs/api.md#errors). */
export interface ErrorEnvelope {
  error: string;
  message: string;
}

/**
 * A failed dashboard API call: the HTTP status, the envelope's `error` code and its `message`
 * (safe to show: the service writes it for people). `status` is 0 when the service could not be
 * reached at all.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait before trying again (`Retry-After` of a 429 or 503), when the service said. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** Whether `error` is an {@link ApiError} with `status`. */
export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status);
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ErrorEnvelope).error === 'string' &&
    typeof (body as ErrorEnvelope).message === 'string' &&
    (body as ErrorEnvelope).message.trim() !== ''
  );
}

/** What to say when a response carries no envelope (e.g. a proxy's HTML error page). */
function fallbackMessage(status: number): string {
  if (status === 401) return 'Your session has ended. Sign in again.';
  if (status === 403) return 'You are not allowed to do that.';
  if (status === 404) return 'Not found.';
  if (status === 429) return 'Too many attempts. Wait a moment and try again.';
  if (status === 502 || status === 503 || status === 504) {
    return 'The service is unavailable right now. Try again in a moment.';
  }
  if (status >= 500) return 'Something went wrong on our side. Try again in a moment.';
  return `The request failed (HTTP ${status}).`;
}

/** The code used when a response carries no envelope. */
function fallbackCode(status: number): string {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'service_unavailable';
  return status >= 500 ? 'internal_error' : 'bad_request';
}

/**
 * Seconds in a `Retry-After` header: delay-seconds or an HTTP date (RFC 9110 §10.2.3), rounded
 * up and never negative; null when absent or unreadable.
 */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The {@link ApiError} for a non-2xx `response`: the envelope's code and message when the body
 * is one, else a generic message for the status. Reads the body.
 */
export async function apiErrorFromResponse(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    const text = await response.text();
    body = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    body = null;
  }
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  if (isEnvelope(body)) return new ApiError(response.status, body.error, body.message, retryAfter);
  return new ApiError(
    response.status,
    fallbackCode(response.status),
    fallbackMessage(response.status),
    retryAfter,
  );
}

/** The {@link ApiError} for a request that got no response at all (offline, DNS, reset). */
export function networkError(): ApiError {
  return new ApiError(
    0,
    'network_error',
    'Cannot reach the service. Check your connection and try again.',
  );
}

/** A message fit to show for any error a query or mutation threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong. Reload the page and try again.';
}
