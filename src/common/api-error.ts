/** Machine-readable error codes of the `{error, message}` envelope (docs/api.md#errors). */
export const ERROR_CODES = [
  'bad_request',
  'invalid_campaign_id',
  'compliance_not_acknowledged',
  'unauthorized',
  'forbidden',
  'not_found',
  'idempotency_conflict',
  // The dashboard API's and the CLI's state conflicts (an import cancelled, an endpoint
  // disabled, a user's email taken); the public API never answers it.
  'conflict',
  // A portal session whose link expired or was revoked (docs/dashboard.md#embedding-the-portal):
  // the portal page tells its host page `session.expired`. The public API never answers it.
  'portal_session_expired',
  'payload_too_large',
  'unsupported_media_type',
  'validation_failed',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;

/**
 * The codes the public API answers (docs/api.md#errors): all but the dashboard's `conflict` and
 * `portal_session_expired`.
 */
export const PUBLIC_ERROR_CODES = ERROR_CODES.filter(
  (code) => code !== 'conflict' && code !== 'portal_session_expired',
);

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The error body on the wire: exactly these two fields (docs/api.md#errors). */
export interface ErrorEnvelope {
  error: ErrorCode;
  message: string;
}

/**
 * A domain error that the global filter turns into `{error, message}` with `status`.
 * Services throw these; nothing else decides statuses.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, e.g. `WWW-Authenticate` or `Retry-After`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static badRequest(message: string): ApiError {
    return new ApiError(400, 'bad_request', message);
  }

  static invalidCampaignId(message = 'campaign_id must be a positive integer'): ApiError {
    return new ApiError(400, 'invalid_campaign_id', message);
  }

  static unauthorized(message = 'A valid bearer token is required'): ApiError {
    return new ApiError(401, 'unauthorized', message, { 'WWW-Authenticate': 'Bearer' });
  }

  static forbidden(message = 'This token may not use that campaign'): ApiError {
    return new ApiError(403, 'forbidden', message);
  }

  static notFound(message = 'Not found'): ApiError {
    return new ApiError(404, 'not_found', message);
  }

  static validationFailed(problems: string[]): ApiError {
    return new ApiError(422, 'validation_failed', problems.join('; '));
  }
}

/** Default code for a bare HTTP status (framework errors that carry no code of ours). */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'idempotency_conflict';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 422:
      return 'validation_failed';
    case 429:
      return 'rate_limited';
    case 503:
      return 'service_unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'bad_request';
  }
}
