import type { components } from './generated/schema';

/** The `error` codes of the API's error envelope (docs/api.md#errors), from openapi.json. */
export type ApiErrorCode = components['schemas']['ErrorResponse']['error'];

/** What {@link CampaignApiError} is built from. */
export interface CampaignApiErrorInit {
  status: number;
  error: ApiErrorCode | string;
  message: string;
  requestId?: string;
  retryAfterSeconds?: number;
  attempts: number;
}

/**
 * The service answered with an error status (4xx or 5xx): `status` is the HTTP status,
 * `error` the envelope's machine-readable code (`forbidden`, `validation_failed`, …; see
 * docs/api.md#errors), `message` its human-readable sentence. Thrown by every
 * {@link CampaignApiClient} method once retrying no longer helps (docs/client.md#errors).
 *
 * An answer that is not the envelope (a proxy's HTML page) gets `error` `"http_<status>"`.
 */
export class CampaignApiError extends Error {
  override readonly name = 'CampaignApiError';
  /** HTTP status of the last answer. */
  readonly status: number;
  /** The envelope's `error` code. */
  readonly error: ApiErrorCode | string;
  /** `X-Request-Id` of the last answer: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** `Retry-After` of the last answer, in seconds, when it had one (429, 503). */
  readonly retryAfterSeconds: number | undefined;
  /** How many requests were sent, retries included. */
  readonly attempts: number;
  /**
   * Each problem a `422 validation_failed` names (its message splits on `; `, e.g.
   * `leads[3] must be an object`); empty for other errors. Problems with single leads are not
   * errors: they come back in the `202`'s `errors`.
   */
  readonly details: string[];

  constructor(init: CampaignApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.error = init.error;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.attempts = init.attempts;
    this.details = init.error === 'validation_failed' ? init.message.split('; ') : [];
  }
}

/**
 * No answer at all after every retry: the connection failed, was reset, or the attempt ran
 * past its timeout. `cause` is the last underlying error. For an upload, it is unknown
 * whether the service stored it: send it again with the same `idempotencyKey` (within 24 h)
 * and it is stored at most once.
 */
export class CampaignApiNetworkError extends Error {
  override readonly name = 'CampaignApiNetworkError';
  /** How many requests were sent, retries included. */
  readonly attempts: number;

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.attempts = attempts;
  }
}

/** What {@link CampaignApiRedirectError} is built from. */
export interface CampaignApiRedirectErrorInit {
  message: string;
  /** The redirect's status (301, 302, 303, 307 or 308). */
  status: number;
  /** Where the refused redirect pointed, as an absolute URL. */
  location: string;
  /** The service URL to use instead, when the redirect left the service's origin. */
  suggestedBaseUrl: string | undefined;
}

/**
 * The service answered with a redirect the client does not follow (docs/client.md#redirects):
 * one to another origin (another scheme, host or port, `https` → `http` included), which
 * would carry the API key or the bearer token there, or more than five in a row. Nothing was
 * sent to the redirect's target. Not retried: the same request would be redirected again.
 *
 * When the service has moved, `suggestedBaseUrl` is the URL to pass as `baseUrl` (the
 * importer's `--base-url`) once you trust it.
 */
export class CampaignApiRedirectError extends Error {
  override readonly name = 'CampaignApiRedirectError';
  /** The redirect's HTTP status. */
  readonly status: number;
  /** The absolute URL the redirect pointed to (not requested). */
  readonly location: string;
  /** The service URL the redirect suggests: the target's origin and path prefix, if any. */
  readonly suggestedBaseUrl: string | undefined;

  constructor(init: CampaignApiRedirectErrorInit) {
    super(init.message);
    this.status = init.status;
    this.location = init.location;
    this.suggestedBaseUrl = init.suggestedBaseUrl;
  }
}
