import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ACCOUNT_RESOURCES, AccountAccessService, type ResourceRef } from '../account-access';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/api-error';
import { isPortalSessionTokenShaped, PortalLinks } from '../portal';
import { SessionsService } from '../users';
import { portalBearerOf, portalPagesOf, portalSessionExpired } from './portal-access';
import { crossOriginProblem, STATE_CHANGING_METHODS } from './request-origin';
import {
  dashboardAccessOf,
  dashboardPrincipalOf,
  dashboardResourcesOf,
  dashboardUnauthorized,
  type DashboardRequest,
} from './dashboard-request';
import {
  bodyNulProblems,
  nulCheckedByRoute,
  DashboardIdPipe,
  documentedQueryNames,
  queryProblems,
  uuidParam,
} from './dashboard-input';
import type { DashboardResourceRule } from './dashboard-route-config';
import { handOverCheckedIds } from './owned-param';
import { clearedSessionCookie, readSessionCookie } from './session-cookie';

/** The header that carries the CSRF token (docs/dashboard.md#cross-site-request-forgery). */
export const CSRF_HEADER = 'x-csrf-token';
/** The CSRF token of the sign-in, which has no session yet. */
export const SIGN_IN_CSRF_TOKEN = 'sign-in';

const request = (context: ExecutionContext) =>
  context.switchToHttp().getRequest<DashboardRequest>();

function undeclared(): ApiError {
  return ApiError.forbidden('This dashboard route declares no access rule');
}

/**
 * First of the dashboard's global guards (docs/dashboard.md#access-rules): every route under
 * `/dashboard/api/` but the sign-in needs a valid session cookie, else `401 unauthorized` (and
 * the browser is told to drop a cookie that is no longer valid). Sets the session on the
 * request. Routes outside `/dashboard/api/` are left alone.
 *
 * A request with an `Authorization` header is an embedded portal's
 * (docs/dashboard.md#embedding-the-portal), and only that: its cookie, if any, is not read. Its
 * bearer token must be a live portal session's, checked on every request: a token of a portal
 * session that expired or was revoked answers `401 portal_session_expired`, anything else (an
 * API key's JWT, a cookie's token) `401 unauthorized`. A live session's route must be open to
 * portals (`@PortalAccess`, else `403`) and serve one of the session's `pages`
 * (docs/security.md#embedded-portal: else `403`, before the route reads or writes anything);
 * the sign-in refuses it (`403`).
 */
@Injectable()
export class DashboardSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: SessionsService,
    private readonly portals: PortalLinks,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = request(context);
    const access = dashboardAccessOf(req);
    if (access === null) return true;
    const bearer = portalBearerOf(req);
    if (bearer !== undefined) {
      const portal = await this.portals.resolve(bearer);
      if (portal === null) {
        // Not a portal session's token at all (an API key's JWT, a session cookie's token):
        // no credential the dashboard knows, as without one.
        if (!isPortalSessionTokenShaped(bearer)) throw dashboardUnauthorized();
        throw portalSessionExpired();
      }
      const sections = portalPagesOf(context.getHandler());
      if (access === 'sign-in' || sections === null) {
        throw ApiError.forbidden('This dashboard route is not available to a portal session');
      }
      if (!sections.some((page) => portal.pages.includes(page))) {
        throw ApiError.forbidden(
          `This portal session does not include the ${sections.join(' or ')} page`,
        );
      }
      if (access === undefined) throw undeclared();
      req.portalSession = portal;
      return true;
    }
    if (access === 'sign-in') return true;
    if (access === undefined) throw undeclared();
    const token = readSessionCookie(req.headers.cookie);
    const session = await this.sessions.resolve(token);
    if (!session || token === undefined) {
      throw dashboardUnauthorized(
        token === undefined
          ? {}
          : { 'Set-Cookie': clearedSessionCookie(this.config.dashboardInsecureCookies) },
      );
    }
    req.dashboardSession = { ...session, token };
    return true;
  }
}

/**
 * Second dashboard guard (docs/dashboard.md#cross-site-request-forgery): a `POST`, `PUT`,
 * `PATCH` or `DELETE` must come from the dashboard's own origin (`Origin` and
 * `Sec-Fetch-Site`, when present) and carry `X-CSRF-Token`: the session's token, or `sign-in`
 * for the sign-in. Otherwise `403 forbidden`, before the route does anything. A portal
 * session's request carries its credential in `Authorization`, which a browser never adds by
 * itself: it needs no CSRF token, but the same origin rule.
 */
@Injectable()
export class DashboardCsrfGuard implements CanActivate {
  constructor(private readonly sessions: SessionsService) {}

  canActivate(context: ExecutionContext): boolean {
    const req = request(context);
    const access = dashboardAccessOf(req);
    if (access === null || !STATE_CHANGING_METHODS.has(req.method)) return true;
    if (access === undefined) throw undeclared();
    const problem = crossOriginProblem(req.headers, `${req.protocol}://${req.host}`);
    if (problem !== null) throw ApiError.forbidden(problem);
    const presented = req.headers[CSRF_HEADER];
    const token = Array.isArray(presented) ? undefined : presented;
    if (req.portalSession !== undefined) return true;
    const valid =
      access === 'sign-in'
        ? token === SIGN_IN_CSRF_TOKEN
        : req.dashboardSession !== undefined &&
          this.sessions.csrfTokenMatches(req.dashboardSession.token, token);
    if (!valid) {
      throw ApiError.forbidden(
        access === 'sign-in'
          ? 'The sign-in needs the header X-CSRF-Token: sign-in'
          : 'X-CSRF-Token is missing or wrong; the token is in GET /dashboard/api/session',
      );
    }
    return true;
  }
}

/**
 * Third dashboard guard (docs/dashboard.md#access-rules): a route declared `admin` refuses a
 * viewer with `403 forbidden`.
 */
@Injectable()
export class DashboardRoleGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = request(context);
    const access = dashboardAccessOf(req);
    if (access === null || access === 'sign-in' || access === 'any') return true;
    if (access !== 'admin') throw undeclared();
    if (dashboardPrincipalOf(req)?.role !== 'admin') {
      throw ApiError.forbidden('This needs the admin role; viewers may only read');
    }
    return true;
  }
}

/**
 * Fourth dashboard guard (docs/dashboard.md#requests-and-answers): on every route under
 * `/dashboard/api/`, a query parameter the route does not document in the OpenAPI document
 * (`@ApiQueries`), a documented one whose value holds a NUL character ({@link queryProblems}),
 * and a NUL character anywhere in a JSON body ({@link bodyNulProblems}; but for the fields a
 * route's own validation checks, `@NulCheckedByRoute`) are
 * `422 validation_failed` naming each one, before the route reads anything: no NUL of a request
 * reaches PostgreSQL, which refuses it in text. Runs after the session, CSRF and role rules, so
 * it tells nothing to a client those refuse; a route cannot forget it, and what a route accepts
 * in its query string is what its document says.
 * @throws ApiError 422 `validation_failed`.
 */
@Injectable()
export class DashboardInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = request(context);
    if (dashboardAccessOf(req) === null) return true;
    const query = (req.query ?? {}) as Record<string, unknown>;
    const problems = [
      ...queryProblems(query, documentedQueryNames(context.getHandler())),
      ...bodyNulProblems(req.body, nulCheckedByRoute(context.getHandler())),
    ];
    if (problems.length > 0) throw ApiError.validationFailed(problems);
    return true;
  }
}

const idPipe = new DashboardIdPipe();

/**
 * The id a route's path parameter carries, read as the route's own pipe reads it
 * (docs/dashboard.md#access-rules): an integer through {@link DashboardIdPipe}, a UUID through
 * {@link uuidParam} (lower-cased).
 * @param rule the route's declaration of the parameter.
 * @param value the parameter as Fastify decoded it.
 * @throws ApiError 400 `bad_request` (`endpoint_id must be a positive integer`) for a malformed
 *   integer id; NotFoundError (`import abc does not exist`) for a value that is not a UUID.
 */
function resourceIdOf(rule: DashboardResourceRule, value: string | undefined): ResourceRef {
  const { type, noun } = ACCOUNT_RESOURCES[rule.resource];
  const raw = value ?? '';
  return {
    resource: rule.resource,
    id:
      type === 'uuid'
        ? uuidParam(raw, noun)
        : idPipe.transform(raw, { type: 'param', data: rule.param }),
  };
}

/**
 * The last dashboard guard (docs/dashboard.md#access-rules), on every dashboard controller
 * through `@DashboardController`, so after the four global ones: each resource the route
 * declares with `@DashboardAccess(level, { resource, param })` must be one of the session's
 * account's, all checked in one query by {@link AccountAccessService}. A malformed id is the
 * answer of the route's own pipe (`400 bad_request`, `404` for a UUID); another account's
 * resource, or one that does not exist, `404 not_found` with the domain's message
 * (`webhook endpoint 7 does not exist`); for a portal session, a resource outside its campaigns
 * too. A route that declares no resource passes. The ids
 * checked are handed over to the route as `Owned<kind>` through `@OwnedParam(param)`
 * (docs/architecture.md#account-access): the services it calls check no account again.
 * @throws ApiError 400; NotFoundError (404); ApiError 401 on a declaring route without a session.
 */
@Injectable()
export class DashboardResourceGuard implements CanActivate {
  constructor(private readonly access: AccountAccessService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = request(context);
    const rules = dashboardResourcesOf(req);
    if (rules.length === 0) return true;
    const principal = dashboardPrincipalOf(req);
    if (!principal) throw dashboardUnauthorized();
    const params = (req.params ?? {}) as Record<string, string | undefined>;
    const refs = rules.map((rule) => resourceIdOf(rule, params[rule.param]));
    await this.access.requireAll(principal.accountId, refs, principal.campaignIds);
    handOverCheckedIds(req, rules, refs);
    return true;
  }
}
