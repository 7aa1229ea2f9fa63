import type { AccountResource } from '../account-access';

/** Where every dashboard API route lives (docs/dashboard.md). */
export const DASHBOARD_API_PREFIX = '/dashboard/api/';

/**
 * Who may use a dashboard API route (docs/dashboard.md#access-rules):
 * - `sign-in`: no session needed, only the CSRF rules with the fixed token `sign-in`
 *   (`POST /dashboard/api/session` alone);
 * - `any`: a valid session, of an admin or a viewer;
 * - `admin`: a valid session of an admin (a viewer gets 403).
 */
export type DashboardAccessLevel = 'sign-in' | 'any' | 'admin';

/**
 * A resource a dashboard route names in its path (docs/dashboard.md#access-rules): which kind,
 * and the path parameter carrying its id, e.g. `{ resource: 'endpoint', param: 'endpoint_id' }`.
 * The resource must be one of the session's account's, or the route answers `404`.
 */
export interface DashboardResourceRule {
  resource: AccountResource;
  param: string;
}

/** What a dashboard route carries in its Fastify route config (`request.routeOptions.config`). */
export interface DashboardRouteConfig {
  dashboard?: {
    access?: DashboardAccessLevel;
    /** The resources its path names; absent when it names none. */
    resources?: readonly DashboardResourceRule[];
  };
}
