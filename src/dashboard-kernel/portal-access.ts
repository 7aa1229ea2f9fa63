import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { dashboardPrincipalOf, type DashboardRequest } from './dashboard-request';

/** Metadata key of {@link PortalAccess} on a handler. */
export const PORTAL_ACCESS_KEY = 'dashboardPortalAccess';

/**
 * Opens a dashboard route to embedded portal sessions (docs/dashboard.md#embedding-the-portal).
 * Every other dashboard route refuses them with `403 forbidden` (fail closed: the sign-in,
 * users, API keys, account settings and audit log never serve a portal). A portal session is
 * held to the same role rule as a user (`DashboardAccess`) and, on every resource the route
 * names, to its account and its campaigns (`DashboardResourceGuard`).
 */
export const PortalAccess = (): MethodDecorator => SetMetadata(PORTAL_ACCESS_KEY, true);

/** Whether a route handler is open to portal sessions ({@link PortalAccess}). */
export function isPortalRoute(handler: object): boolean {
  return Reflect.getMetadata(PORTAL_ACCESS_KEY, handler) === true;
}

/**
 * The portal session token of a request: `Authorization: Bearer cps_…`. Undefined without an
 * `Authorization` header; an empty string for any other value of it (refused, never read as a
 * cookie session).
 */
export function portalBearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer ([A-Za-z0-9_-]{1,100})$/.exec(header);
  return match ? match[1] : '';
}

/**
 * 401 for a portal request whose session is unknown, expired or revoked
 * (docs/dashboard.md#embedding-the-portal): the portal page posts `session.expired` to its host.
 */
export function portalSessionExpired(): ApiError {
  return new ApiError(
    401,
    'portal_session_expired',
    'This portal session has expired or was revoked; ask the host page for a new link',
  );
}

/**
 * The campaigns a dashboard request may see (docs/dashboard.md#embedding-the-portal): a portal
 * session's list, or null (every campaign of the account) for a signed-in user and a portal
 * minted for all of them. For routes that list the account's campaigns.
 */
export const SessionCampaigns = createParamDecorator(
  (_data: unknown, context: ExecutionContext): number[] | null =>
    dashboardPrincipalOf(context.switchToHttp().getRequest<DashboardRequest>())?.campaignIds ??
    null,
);
