import { createHash, randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { CampaignApiError, CampaignApiNetworkError, CampaignApiRedirectError } from './errors';
import type { components, paths } from './generated/schema';
import {
  DEFAULT_RETRY,
  isRetryableStatus,
  parseRetryAfter,
  retryDelayMs,
  sleep,
  type RetryOptions,
} from './retry';
import { TokenCache } from './token-cache';

export type LeadUploadRequest = components['schemas']['LeadUploadRequest'];
export type LeadUploadResponse = components['schemas']['LeadUploadResponse'];
export type LeadInput = components['schemas']['LeadInput'];
export type LeadUploadError = components['schemas']['LeadUploadError'];
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEndpointHealth = components['schemas']['WebhookEndpointHealth'];

const TOKEN_PATH = '/api/v1/auth/api-key/token';

/** Redirects followed in a row within the service's origin before giving up (docs/client.md#redirects). */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** The headers that describe a body: dropped with the body when a redirect turns into a GET. */
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

/** One request as sent: what a same-origin redirect may keep or change. */
interface Outgoing {
  url: URL;
  method: string;
  headers: Headers;
  body: ArrayBuffer | undefined;
}

/**
 * An API key's fingerprint: `sha256:` and the first 16 hex digits of a SHA-256 of the key
 * (with a prefix of its own, so it is not the hash the service stores either). It tells keys
 * apart, e.g. in the importer's resume state, without revealing or recording the key.
 */
export function apiKeyFingerprint(apiKey: string): string {
  const digest = createHash('sha256').update(`campaign-api-client key fingerprint\n${apiKey}`);
  return `sha256:${digest.digest('hex').slice(0, 16)}`;
}

/** Options of {@link CampaignApiClient}. */
export interface CampaignApiClientOptions {
  /** Where the service listens, e.g. `https://api.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** The API key (`capi_…`). Sent only in the body of the token exchange, never logged. */
  apiKey: string;
  /**
   * How long before its expiry a token is replaced, in ms (default 60,000); at most half the
   * token's lifetime, so a short-lived token is still reused.
   */
  refreshMarginMs?: number;
  /** Longest one attempt may take, in ms, before it is abandoned and retried (default 120,000). */
  timeoutMs?: number;
  /** Retry schedule for network failures and 408/429/500/502/503/504 (see {@link RetryOptions}). */
  retry?: RetryOptions;
  /** Called before each retry: which attempt failed, why, and how long the client waits. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * The fetch to send requests with (default the global fetch). Requests come with
   * `redirect: 'manual'`: it must return a redirect as it is, never follow it, so that the
   * client alone decides where credentials go (docs/client.md#redirects).
   */
  fetch?: (request: Request) => Promise<Response>;
  /** The clock in ms (default Date.now); for tests. */
  now?: () => number;
}

/** What {@link CampaignApiClientOptions.onRetry} is told. */
export interface RetryEvent {
  method: string;
  path: string;
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** The HTTP status, or undefined for a network failure or timeout. */
  status: number | undefined;
  /** The error code or network error's message. */
  reason: string;
  delayMs: number;
}

/** Per-call options of an upload. */
export interface UploadOptions {
  /**
   * Sent as `Idempotency-Key` on the first attempt and every retry (1–255 characters). Give
   * your own to retry a batch safely across runs; default a new UUID per call.
   */
  idempotencyKey?: string;
  /** Aborts the call (and its retries); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** The `202` of an upload, with what the client knows about the request. */
export interface LeadUploadResult {
  /** The service's report: counts and the per-lead `errors` (rows are 0-based in `leads`). */
  report: LeadUploadResponse;
  /** The `Idempotency-Key` the upload was sent with. */
  idempotencyKey: string;
  /** True when the service replayed the first `202` for this key (`Idempotent-Replayed`). */
  replayed: boolean;
}

/**
 * Typed client of Campaign API's public HTTP API (docs/api.md), generated from openapi.json.
 *
 * - Exchanges the API key for a bearer token on first use and again shortly before it
 *   expires; concurrent calls share one exchange; a 401 triggers one fresh exchange.
 * - Retries network failures, timeouts, 408, 429, 500, 502, 503 and 504 with exponential
 *   backoff (honouring `Retry-After`); an upload keeps its `Idempotency-Key` on every retry,
 *   so it is stored at most once.
 * - Follows redirects only within the service's origin (at most {@link MAX_REDIRECTS});
 *   one to another origin is refused with {@link CampaignApiRedirectError} before anything,
 *   the API key or the token above all, is sent there.
 * - Throws {@link CampaignApiError} (an error answer, with the envelope's `error` code),
 *   {@link CampaignApiNetworkError} (no answer after every retry) or
 *   {@link CampaignApiRedirectError} (a redirect it does not follow).
 *
 * See docs/client.md.
 */
export class CampaignApiClient {
  /**
   * The underlying openapi-fetch client, typed by openapi.json, with the token, retries and
   * typed errors of this class: for operations without a method here.
   */
  readonly api: Client<paths>;
  /**
   * The service's base URL, normalised: scheme, lower-case host, the port unless the
   * default, and the path without trailing slashes; no credentials, query or fragment.
   */
  readonly serviceUrl: string;
  /** The API key's {@link apiKeyFingerprint}, never the key. */
  readonly keyFingerprint: string;
  private readonly tokens: TokenCache;
  private readonly retry: Required<RetryOptions>;
  private readonly timeoutMs: number;
  private readonly fetchImpl: (request: Request) => Promise<Response>;
  private readonly now: () => number;
  /** The service's origin (scheme, host, port): the only one requests and redirects go to. */
  private readonly origin: string;
  /** The path of `baseUrl`, without a trailing slash (`''` at the root). */
  private readonly basePath: string;

  constructor(private readonly options: CampaignApiClientOptions) {
    if (!options.apiKey) throw new TypeError('CampaignApiClient: apiKey is required');
    const base = new URL(options.baseUrl); // throws on a bad URL
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.fetchImpl = options.fetch ?? ((request) => fetch(request));
    this.now = options.now ?? Date.now;
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.serviceUrl = `${this.origin}${this.basePath}`;
    this.keyFingerprint = apiKeyFingerprint(options.apiKey);
    this.api = createClient<paths>({
      baseUrl: base.href.replace(/\/+$/, ''),
      fetch: (request) => this.send(request),
    });
    this.tokens = new TokenCache(
      async () => {
        const { data } = await this.api.POST(TOKEN_PATH, { body: { api_key: options.apiKey } });
        return data!;
      },
      options.refreshMarginMs ?? 60_000,
      this.now,
    );
  }

  /** A valid bearer token (exchanging or refreshing first when due). */
  token(): Promise<string> {
    return this.tokens.get();
  }

  /**
   * `POST /api/v1/leads/upload`: stores the valid leads (1 to 10,000) of one batch.
   *
   * @throws CampaignApiError on an error answer (e.g. `403 forbidden`, `422 validation_failed`)
   * @throws CampaignApiNetworkError when no answer came after every retry
   */
  async uploadLeads(
    body: LeadUploadRequest,
    options: UploadOptions = {},
  ): Promise<LeadUploadResult> {
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    const { data, response } = await this.api.POST('/api/v1/leads/upload', {
      body,
      params: { header: { 'Idempotency-Key': idempotencyKey } },
      signal: options.signal,
    });
    return {
      report: data!,
      idempotencyKey,
      replayed: response.headers.get('idempotent-replayed') === 'true',
    };
  }

  /** `GET /api/v1/webhooks/{campaign_id}/events`: the subscribable event types. */
  async listEventTypes(campaignId: number, signal?: AbortSignal): Promise<string[]> {
    const { data } = await this.api.GET('/api/v1/webhooks/{campaign_id}/events', {
      params: { path: { campaign_id: campaignId } },
      signal,
    });
    return data!;
  }

  /** `GET /api/v1/webhooks/{campaign_id}/endpoints`: the campaign's endpoints by id. */
  async listEndpoints(campaignId: number, signal?: AbortSignal): Promise<WebhookEndpoint[]> {
    const { data } = await this.api.GET('/api/v1/webhooks/{campaign_id}/endpoints', {
      params: { path: { campaign_id: campaignId } },
      signal,
    });
    return data!;
  }

  /** `GET /api/v1/webhooks/{campaign_id}/endpoints/{eid}/health`: one endpoint's health. */
  async getEndpointHealth(
    campaignId: number,
    endpointId: number,
    signal?: AbortSignal,
  ): Promise<WebhookEndpointHealth> {
    const { data } = await this.api.GET('/api/v1/webhooks/{campaign_id}/endpoints/{eid}/health', {
      params: { path: { campaign_id: campaignId, eid: endpointId } },
      signal,
    });
    return data!;
  }

  /**
   * The fetch openapi-fetch sends through: adds the bearer token (except to the exchange),
   * retries, and turns every error answer into a thrown CampaignApiError, so the typed
   * methods only ever see a 2xx.
   */
  private async send(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const needsToken = !path.endsWith(TOKEN_PATH);
    const idempotent = request.headers.has('idempotency-key');
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const signal = request.signal;
    let reauthenticated = false;
    for (let attempt = 1; ; attempt++) {
      const headers = new Headers(request.headers);
      const token = needsToken ? await this.tokens.get() : undefined;
      if (token) headers.set('Authorization', `Bearer ${token}`);
      let response: Response;
      try {
        response = await this.fetchWithinOrigin(
          { url: new URL(request.url), method: request.method, headers, body },
          AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
        );
      } catch (error) {
        if (error instanceof CampaignApiRedirectError) throw error; // the same again: not retried
        if (signal.aborted) throw signal.reason;
        const reason = describeNetworkError(error);
        if (attempt > this.retry.retries) {
          throw new CampaignApiNetworkError(
            `${request.method} ${path}: no answer after ${attempt} attempts (${reason})`,
            attempt,
            error,
          );
        }
        await this.wait(request.method, path, attempt, undefined, reason, undefined, signal);
        continue;
      }
      if (response.ok) return response;

      const failure = await readError(response, this.now(), attempt);
      if (failure.status === 401 && token && !reauthenticated) {
        // Expired early (a lowered TOKEN_TTL_SECONDS) or the key was revoked: one new exchange
        // tells which; it answers 401 itself when the key is no longer valid.
        reauthenticated = true;
        this.tokens.invalidate(token);
        attempt--;
        continue;
      }
      const retryable =
        isRetryableStatus(failure.status) ||
        (idempotent && failure.error === 'idempotency_conflict');
      if (!retryable || attempt > this.retry.retries) throw failure;
      await this.wait(
        request.method,
        path,
        attempt,
        failure.status,
        failure.error,
        failure.retryAfterSeconds,
        signal,
      );
    }
  }

  /**
   * Sends one attempt with `redirect: 'manual'` and follows the service's redirects itself,
   * only within its origin (docs/client.md#redirects): up to {@link MAX_REDIRECTS} hops;
   * 307 and 308 keep the method and body, 303 (and 301/302 of a POST) turn it into a GET
   * without body, as fetch does. Headers (the bearer token, the Idempotency-Key) go along,
   * since every hop is the same service.
   *
   * @returns the first answer that is not a followed redirect (a 3xx without `Location` is
   *   returned as it is, an error answer)
   * @throws CampaignApiRedirectError for a redirect to another origin, before anything is
   *   sent there, or past {@link MAX_REDIRECTS}
   * @throws what the fetch throws (network failure, timeout, abort)
   */
  private async fetchWithinOrigin(first: Outgoing, signal: AbortSignal): Promise<Response> {
    let outgoing = first;
    for (let hop = 0; ; hop++) {
      const response = await this.fetchImpl(
        new Request(outgoing.url, {
          method: outgoing.method,
          headers: outgoing.headers,
          body: outgoing.body,
          signal,
          redirect: 'manual',
        }),
      );
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
      let target: URL;
      try {
        target = new URL(location, outgoing.url);
      } catch {
        return response; // an unusable Location: reported as the error answer it is
      }
      await response.body?.cancel().catch(() => undefined);
      const request = `${first.method} ${first.url.pathname}`;
      if (target.origin !== this.origin) {
        const suggestedBaseUrl = this.suggestBaseUrl(first.url, target);
        throw new CampaignApiRedirectError({
          message:
            `${request}: the service at ${this.origin} redirected (${response.status}) to ` +
            `${target.href}, another origin; not followed, so that the API key and tokens are ` +
            `not sent there. If the service has moved there, use ${suggestedBaseUrl} as the ` +
            `service URL`,
          status: response.status,
          location: target.href,
          suggestedBaseUrl,
        });
      }
      if (hop >= MAX_REDIRECTS) {
        throw new CampaignApiRedirectError({
          message: `${request}: more than ${MAX_REDIRECTS} redirects in a row (the last to ${target.href}); not followed`,
          status: response.status,
          location: target.href,
          suggestedBaseUrl: undefined,
        });
      }
      outgoing = { ...outgoing, url: target };
      const toGet =
        (response.status === 303 && outgoing.method !== 'GET' && outgoing.method !== 'HEAD') ||
        ((response.status === 301 || response.status === 302) && outgoing.method === 'POST');
      if (toGet) {
        const headers = new Headers(outgoing.headers);
        for (const name of BODY_HEADERS) headers.delete(name);
        outgoing = { ...outgoing, method: 'GET', headers, body: undefined };
      }
    }
  }

  /**
   * The service URL a cross-origin redirect points to: the target's origin, with the path
   * prefix before the API path when the target keeps it (`https://new.example/v/api/v1/…`
   * → `https://new.example/v`).
   */
  private suggestBaseUrl(requested: URL, target: URL): string {
    const apiPath = requested.pathname.slice(this.basePath.length);
    const prefix =
      apiPath.length > 1 && target.pathname.endsWith(apiPath)
        ? target.pathname.slice(0, -apiPath.length)
        : '';
    return `${target.origin}${prefix.replace(/\/+$/, '')}`;
  }

  private async wait(
    method: string,
    path: string,
    attempt: number,
    status: number | undefined,
    reason: string,
    retryAfterSeconds: number | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const delayMs = retryDelayMs(attempt, this.retry, retryAfterSeconds);
    this.options.onRetry?.({ method, path, attempt, status, reason, delayMs });
    await sleep(delayMs, signal);
  }
}

/** The error answer as a CampaignApiError (the envelope's code, or `http_<status>`). */
async function readError(
  response: Response,
  now: number,
  attempts: number,
): Promise<CampaignApiError> {
  const text = await response.text().catch(() => '');
  let envelope: { error?: unknown; message?: unknown } = {};
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    // not the API's envelope: a proxy's page, or an empty body
  }
  const code = typeof envelope.error === 'string' ? envelope.error : `http_${response.status}`;
  const message =
    typeof envelope.message === 'string'
      ? envelope.message
      : `HTTP ${response.status} ${response.statusText}`.trim();
  return new CampaignApiError({
    status: response.status,
    error: code,
    message,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after'), now),
    attempts,
  });
}

/** A short reason for a failed fetch: `ECONNREFUSED`, `timeout`, or the message. */
function describeNetworkError(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'timeout';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
