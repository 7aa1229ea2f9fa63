import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import type { PortalPage } from '../portal';
import { dashboardPrincipalOf, type DashboardRequest } from './dashboard-request';

/** Metadata key of {@link PortalAccess} on a handler. */
export const PORTAL_ACCESS_KEY = 'dashboardPortalAccess';

/**
 * Opens a dashboard route to embedded portal sessions (docs/dashboard.md#embedding-the-portal)
 * whose `pages` hold at least one of the sections named (docs/security.md#embedded-portal):
 * `@PortalAccess('endpoints')` for what only the endpoints section does (adding, changing and
 * deleting endpoints, their secrets and test events), `@PortalAccess('deliveries')` for the
 * delivery log and figures, both for what every section reads to find its way (the campaigns
 * and their endpoints). Any other section answers `403 forbidden` before the route runs.
 * Every other dashboard route refuses portal sessions with `403 forbidden` (fail closed: the
 * sign-in, users, API keys, account settings and audit log never serve a portal). A portal
 * session is held to the same role rule as a user (`DashboardAccess`) and, on every resource
 * the route names, to its account and its campaigns (`DashboardResourceGuard`).
 * @param pages one or more of `PORTAL_PAGES`.
 */
export const PortalAccess = (...pages: [PortalPage, ...PortalPage[]]): MethodDecorator =>
  SetMetadata(PORTAL_ACCESS_KEY, Object.freeze([...new Set(pages)]));

/**
 * The portal sections a route handler serves ({@link PortalAccess}); null for a route closed to
 * portal sessions.
 */
export function portalPagesOf(handler: object): readonly PortalPage[] | null {
  const pages: unknown = Reflect.getMetadata(PORTAL_ACCESS_KEY, handler);
  return Array.isArray(pages) && pages.length > 0 ? (pages as PortalPage[]) : null;
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
