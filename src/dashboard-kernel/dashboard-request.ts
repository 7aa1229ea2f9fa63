import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import type { PortalSession } from '../portal';
import type { ResolvedSession } from '../users';
import {
  DASHBOARD_API_PREFIX,
  type DashboardAccessLevel,
  type DashboardResourceRule,
  type DashboardRouteConfig,
} from './dashboard-route-config';

/** The session of a dashboard request, set by {@link DashboardSessionGuard}. */
export interface DashboardSessionContext extends ResolvedSession {
  /** The session token from the cookie (to end it at sign-out, to check the CSRF token). */
  token: string;
}

/**
 * A Fastify request as the dashboard guards and controllers see it: a signed-in user's
 * (`dashboardSession`, from the cookie) or an embedded portal's (`portalSession`, from
 * `Authorization: Bearer`), never both.
 */
export type DashboardRequest = FastifyRequest & {
  dashboardSession?: DashboardSessionContext;
  portalSession?: PortalSession;
};

/**
 * Who a dashboard request acts for, whichever its kind of session: the account, the role, and
 * the campaigns it may see (null: all of the account's). Undefined without a session.
 */
export function dashboardPrincipalOf(
  request: DashboardRequest,
): { accountId: number; role: string; campaignIds: number[] | null } | undefined {
  if (request.portalSession) {
    const { accountId, role, campaignIds } = request.portalSession;
    return { accountId, role, campaignIds };
  }
  if (request.dashboardSession) {
    const { accountId, role } = request.dashboardSession.user;
    return { accountId, role, campaignIds: null };
  }
  return undefined;
}

/**
 * The access a request's route declares: null when the route is not under `/dashboard/api/`
 * (the dashboard guards leave it alone), undefined when a dashboard route declares none (the
 * guards then refuse it: fail closed).
 */
export function dashboardAccessOf(
  request: FastifyRequest,
): DashboardAccessLevel | null | undefined {
  const url = request.routeOptions?.url;
  if (url === undefined || !url.startsWith(DASHBOARD_API_PREFIX)) return null;
  return (request.routeOptions.config as DashboardRouteConfig | undefined)?.dashboard?.access;
}

/**
 * The resources a request's route names in its path (`@DashboardAccess`'s rules): empty for a
 * route that names none and for a route not under `/dashboard/api/`.
 */
export function dashboardResourcesOf(request: FastifyRequest): readonly DashboardResourceRule[] {
  if (dashboardAccessOf(request) === null) return [];
  return (
    (request.routeOptions.config as DashboardRouteConfig | undefined)?.dashboard?.resources ?? []
  );
}

/**
 * The dashboard session of the request (docs/dashboard.md#sessions); on routes that need one
 * (none of them open to portal sessions).
 */
export const CurrentSession = createParamDecorator(
  (_data: unknown, context: ExecutionContext): DashboardSessionContext => {
    const session = context.switchToHttp().getRequest<DashboardRequest>().dashboardSession;
    if (!session) throw dashboardUnauthorized();
    return session;
  },
);

/** 401 for a dashboard request without a valid session (no `WWW-Authenticate`: no bearer here). */
export function dashboardUnauthorized(headers: Record<string, string> = {}): ApiError {
  return new ApiError(401, 'unauthorized', 'Sign in to the dashboard first', headers);
}
