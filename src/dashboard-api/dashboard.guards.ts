import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ApiError } from '../common/api-error';
import { csrfTokenMatches } from '../users/session-tokens';
import { SessionsService } from '../users/sessions.service';
import { crossOriginProblem, STATE_CHANGING_METHODS } from './request-origin';
import {
  dashboardAccessOf,
  dashboardUnauthorized,
  type DashboardRequest,
} from './dashboard-request';
import { bodyNulProblems, documentedQueryNames, queryProblems } from './dashboard-input';
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
 */
@Injectable()
export class DashboardSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = request(context);
    const access = dashboardAccessOf(req);
    if (access === null || access === 'sign-in') return true;
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
 * for the sign-in. Otherwise `403 forbidden`, before the route does anything.
 */
@Injectable()
export class DashboardCsrfGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = request(context);
    const access = dashboardAccessOf(req);
    if (access === null || !STATE_CHANGING_METHODS.has(req.method)) return true;
    if (access === undefined) throw undeclared();
    const problem = crossOriginProblem(req.headers, `${req.protocol}://${req.host}`);
    if (problem !== null) throw ApiError.forbidden(problem);
    const presented = req.headers[CSRF_HEADER];
    const token = Array.isArray(presented) ? undefined : presented;
    const valid =
      access === 'sign-in'
        ? token === SIGN_IN_CSRF_TOKEN
        : req.dashboardSession !== undefined && csrfTokenMatches(req.dashboardSession.token, token);
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
    if (req.dashboardSession?.user.role !== 'admin') {
      throw ApiError.forbidden('This needs the admin role; viewers may only read');
    }
    return true;
  }
}

/**
 * Fourth dashboard guard (docs/dashboard.md#requests-and-answers): on every route under
 * `/dashboard/api/`, a query parameter the route does not document in the OpenAPI document
 * (`@ApiQueries`), a documented one whose value holds a NUL character ({@link queryProblems}),
 * and a NUL character anywhere in a JSON body ({@link bodyNulProblems}) are
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
      ...bodyNulProblems(req.body),
    ];
    if (problems.length > 0) throw ApiError.validationFailed(problems);
    return true;
  }
}
