import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../api/schema';
import { ApiError, apiErrorFromResponse, networkError } from './api-errors';

/** The header that carries the anti-CSRF proof (docs/dashboard.md#cross-site-request-forgery). */
export const CSRF_HEADER = 'X-CSRF-Token';
/** The fixed proof of the sign-in request, which has no session yet. */
export const SIGN_IN_CSRF_TOKEN = 'sign-in';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

let csrfToken: string | null = null;

/**
 * Remembers the session's anti-CSRF token (from `GET /dashboard/api/session`), which every
 * later state-changing request carries; null forgets it (signed out).
 */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The token {@link setCsrfToken} remembered, if any. */
export function currentCsrfToken(): string | null {
  return csrfToken;
}

let portalToken: string | null = null;

/** What an embedded portal learns of every answer (docs/dashboard.md#embedding-the-portal). */
export type PortalResponseObserver = (request: Request, response: Response) => void;

let portalObserver: PortalResponseObserver | null = null;

/**
 * Makes every later request an embedded portal session's (docs/dashboard.md#embedding-the-portal):
 * `Authorization: Bearer <token>`, held only in this module's memory (no cookie, no storage),
 * with `observe` told of every answer (to post `endpoint.created`, `session.expired`, …).
 * Null ends portal mode.
 */
export function setPortalSession(
  token: string | null,
  observe: PortalResponseObserver | null = null,
): void {
  portalToken = token;
  portalObserver = token === null ? null : observe;
}

/**
 * The client's middleware:
 * - in an embedded portal, every request carries the portal session's bearer token, and the
 *   portal is told of every answer ({@link setPortalSession});
 * - a state-changing request gets `X-CSRF-Token` (the session's token) unless the call set one;
 * - a POST, PUT or PATCH without a body sends `{}`: the service takes JSON objects only (415/400
 *   otherwise, docs/api.md#conventions);
 * - a non-2xx response is thrown as an {@link ApiError} carrying the envelope's message, and a
 *   request that got no response as one with status 0, so callers handle only success.
 */
export const dashboardMiddleware: Middleware = {
  onRequest({ request }) {
    if (portalToken !== null) request.headers.set('Authorization', `Bearer ${portalToken}`);
    if (!STATE_CHANGING.has(request.method)) return undefined;
    if (!request.headers.has(CSRF_HEADER) && csrfToken !== null) {
      request.headers.set(CSRF_HEADER, csrfToken);
    }
    if (WITH_BODY.has(request.method) && request.body === null) {
      const headers = new Headers(request.headers);
      headers.set('Content-Type', 'application/json');
      return new Request(request, { headers, body: '{}' });
    }
    return undefined;
  },
  async onResponse({ request, response }) {
    portalObserver?.(request, response.clone());
    if (!response.ok) throw await apiErrorFromResponse(response);
    return undefined;
  },
  onError({ error }) {
    if (error instanceof ApiError) return error;
    // A request the caller aborted (TanStack Query cancels superseded queries) stays an abort:
    // returning nothing rethrows the original error.
    if ((error as { name?: unknown } | null)?.name === 'AbortError') return undefined;
    return networkError();
  },
};

/** The typed dashboard API client: `api.GET('/dashboard/api/session')` and so on. */
export type DashboardApi = Client<paths>;

/**
 * A dashboard API client on `origin` (the page's own: the API is same-origin, cookies are sent)
 * using `fetchImpl` (tests pass a stub). Calls resolve with `{data}` only on success and reject
 * with an {@link ApiError} otherwise.
 */
export function createDashboardApi(
  origin: string = window.location.origin,
  fetchImpl: typeof fetch = (input, init) => globalThis.fetch(input, init),
): DashboardApi {
  const client = createClient<paths>({
    baseUrl: origin,
    fetch: fetchImpl,
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  client.use(dashboardMiddleware);
  return client;
}

/** The app's client. */
export const api: DashboardApi = createDashboardApi();

/**
 * The body of a successful call: `call` is one of {@link api}'s calls, which resolves with
 * `{data}` only on success (any other answer rejects with an {@link ApiError}).
 */
export async function body<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}
